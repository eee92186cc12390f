// The node's watch set (protocol 2): the links a gateway checks on this node, remembered for the
// life of one connection, so a monitor check crosses the link as one small request ("check") and
// an answer that carries only what is not idle. The gateway sends each link once (`set`: its
// provider, source ref, marker and recent own texts, under a number of its choosing), again only
// when one of those changed (a marker that moved, a re-adoption), and `drop`s what it stopped
// checking. A reconnect starts from an empty set: the gateway sends the whole set again.
//
// The node never moves a marker by itself: every check probes from the marker the gateway last
// sent, which is the one it stored after recording. Each check stats every source for real
// (the provider's own probe, exactly as in the gateway); a ref is checked against the roots when
// it is set (a refused one is reported, with its reason, at every check) and the file system
// checks every path again whenever its file's identity changes (guard.ts).
//
// Issue 31: a gateway that sends `push: true` (in `watch` or `check`) has the links' files watched
// (file-watch.ts) and hears `changed` frames; it then checks those links with `check` and `ids`
// (only them, in that order). A gateway that never sends `push` never hears one (protocol 2 as
// before).
import type { MarkerFields, ProviderSource, SourceRef } from '../gateway/catalog/provider';
import { ANSWER_CAP, READ_CAP, isObject, type ErrorCode } from '../gateway/nodes/protocol';
import { OutsideRootsError } from './guard';
import { NodeError, errorText, type WireOutcome } from './errors';
import type { FileWatch } from './file-watch';

/** Entries one watch or check request may set. */
export const MAX_SET = 2000;
/** Links one connection may watch. */
export const MAX_WATCHED = 50_000;

export interface Parsed {
  source: ProviderSource;
  ref: SourceRef;
  marker: MarkerFields;
  own: Set<string>;
  /** The files whose events mean news for this link (checked under the roots). */
  files: string[];
}

type Entry = Parsed | { refused: { code: ErrorCode; error: string } };

/** An outcome on the wire, with the gateway's number of its link. */
export type CheckResult = WireOutcome & { id: number };

function bad(message: string): never {
  throw new NodeError('bad_request', message);
}

const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

function refusal(err: unknown): { code: ErrorCode; error: string } | undefined {
  if (err instanceof OutsideRootsError) return { code: 'outside_roots', error: err.message };
  if (err instanceof NodeError) return { code: err.code, error: err.message };
  return undefined;
}

/**
 * An outcome's size on the wire: exact when it carries messages, else a bound (every string
 * escaped at worst 6×): the common outcomes need no second stringify.
 */
function wireSize(r: WireOutcome): number {
  if (r.kind === 'activity' && r.messages) return JSON.stringify(r).length;
  const m = r.kind === 'activity' || r.kind === 'rebaseline' ? r.marker : undefined;
  const strings =
    (m ? (m.inode?.length ?? 0) + (m.markerJson?.length ?? 0) + (m.scanState?.length ?? 0) : 0) +
    ('error' in r ? r.error.length : 0) +
    ('reason' in r ? r.reason.length : 0) +
    ('from' in r ? r.from.length : 0);
  return 256 + 6 * strings;
}

function probeOne(e: Entry, now: number, visible: boolean, used: Set<ProviderSource>): WireOutcome {
  if ('refused' in e) return { kind: 'refused', ...e.refused };
  try {
    used.add(e.source);
    const out = e.source.probe(e.ref, e.marker, {
      ownTexts: e.own,
      now,
      ...(visible ? { visible: true } : {}),
    });
    if (out.kind === 'inconclusive') {
      // The provider met the roots' refusal on its way (a path swapped for a link): say so.
      const r = refusal(out.error);
      return r ? { kind: 'refused', ...r } : { kind: 'inconclusive', error: errorText(out.error) };
    }
    if (
      out.kind === 'activity' &&
      out.turns === 0 &&
      !out.changed &&
      !out.messages?.length &&
      out.occurredAt === undefined
    )
      return { kind: 'idle' };
    return out;
  } catch (err) {
    const r = refusal(err);
    return r ? { kind: 'refused', ...r } : { kind: 'inconclusive', error: errorText(err) };
  }
}

/** A request's `set` and `drop`, checked as a whole before anything changes. */
function parseUpdate(args: Record<string, unknown>, entries: Map<number, Entry>) {
  const set = args.set ?? [];
  const drop = args.drop ?? [];
  if (!Array.isArray(set) || set.length > MAX_SET) bad(`set must be an array of at most ${MAX_SET}`);
  if (!Array.isArray(drop) || !drop.every(isId)) bad('drop must be an array of link numbers');
  if (!set.every((i) => isObject(i) && isId(i.id)))
    bad('each entry of set must be an object with a positive integer id');
  const items = set as (Record<string, unknown> & { id: number })[];
  const dropped = new Set(drop as number[]);
  const added = items.filter((i) => !entries.has(i.id) || dropped.has(i.id)).length;
  if (entries.size - [...dropped].filter((id) => entries.has(id)).length + added > MAX_WATCHED)
    bad(`a node watches at most ${MAX_WATCHED} links per connection`);
  return { items, drop: drop as number[] };
}

/** One entry as the gateway sent it: parsed, or refused with its reason. */
function entryOf(parse: (item: Record<string, unknown>) => Parsed, item: Record<string, unknown>): Entry {
  try {
    return parse(item);
  } catch (err) {
    const r = refusal(err);
    if (!r) throw err;
    return { refused: r };
  }
}

/** What one check reads: the whole set (resuming where the last one stopped), or `ids` only. */
function checkOrder(
  entries: Map<number, Entry>,
  ids: unknown,
  resumeAt: number | undefined,
): { order: Iterable<[number, Entry]>; some: boolean } {
  if (Array.isArray(ids)) {
    if (ids.length > MAX_SET || !ids.every(isId)) bad(`ids must be at most ${MAX_SET} link numbers`);
    const order = [...new Set(ids as number[])].flatMap((id): [number, Entry][] => {
      const e = entries.get(id);
      return e ? [[id, e]] : [];
    });
    return { order, some: true };
  }
  if (resumeAt === undefined || !entries.has(resumeAt)) return { order: entries, some: false };
  const all = [...entries];
  const cut = all.findIndex(([id]) => id === resumeAt);
  return { order: [...all.slice(cut), ...all.slice(0, cut)], some: false };
}

interface CheckRun {
  now: number;
  visible: boolean;
  report: Set<number>;
  budget: number;
}

/**
 * The outcomes of `order` that are not idle (and those of `report` whatever they are), stopping
 * at the budget or the answer cap: then `resumeAt` is the link the next check starts at.
 */
function runCheck(order: Iterable<[number, Entry]>, c: CheckRun) {
  const started = performance.now();
  const used = new Set<ProviderSource>();
  const results: CheckResult[] = [];
  let resumeAt: number | undefined;
  let size = 0;
  let first = true;
  try {
    for (const [id, e] of order) {
      // The first link always runs, so every check makes progress.
      if (!first && performance.now() - started > c.budget) {
        resumeAt = id;
        break;
      }
      first = false;
      let r = probeOne(e, c.now, c.visible, used);
      if (r.kind === 'idle' && !c.report.has(id)) continue;
      let n = wireSize(r);
      if (r.kind === 'activity' && r.messages && n > READ_CAP * 2) {
        // The live transcript loses this window's messages; the count stays exact.
        const { messages: _dropped, ...rest } = r;
        r = rest;
        n = JSON.stringify(r).length;
      }
      if (results.length > 0 && size + n > ANSWER_CAP) {
        resumeAt = id;
        break;
      }
      size += n;
      results.push({ ...r, id });
    }
  } finally {
    for (const s of used) s.endCheck?.();
  }
  return { results, resumeAt };
}

/**
 * `parse`: one link as the gateway sent it, checked (throws NodeError / OutsideRootsError).
 * `files`: the connection's file watch, used once the gateway asks for pushes.
 */
export function createWatchSet(parse: (item: Record<string, unknown>) => Parsed, files?: FileWatch) {
  const entries = new Map<number, Entry>();
  /** Where a check that stopped early (budget, answer cap) left off: the next one starts there. */
  let resumeAt: number | undefined;
  let pushing = false;

  const follow = (id: number, e: Entry) => {
    if (pushing) files?.set(id, 'refused' in e ? [] : e.files);
  };

  /** Applies `set` and `drop`; a malformed request changes nothing. */
  function update(args: Record<string, unknown>): void {
    const { items, drop } = parseUpdate(args, entries);
    for (const id of drop) {
      entries.delete(id);
      files?.drop(id);
    }
    for (const item of items) {
      const e = entryOf(parse, item);
      // Re-set: moved to the end, like a new one.
      entries.delete(item.id);
      entries.set(item.id, e);
      follow(item.id, e);
    }
    if (args.push === true && !pushing && files) {
      pushing = true;
      for (const [id, e] of entries) follow(id, e);
    }
    if (pushing) files?.retry();
  }

  /**
   * One check over the whole set (or `ids`): every source probed from its marker; the answer
   * carries the outcomes that are not idle, and those of `report` (links whose missing streak an
   * idle outcome resets) whatever they are. It stops early at `budgetMs` or at the answer cap.
   */
  function check(args: Record<string, unknown>): { results: CheckResult[]; partial?: true } {
    update(args);
    const { order, some } = checkOrder(entries, args.ids, resumeAt);
    const run = runCheck(order, {
      now: typeof args.now === 'number' && Number.isFinite(args.now) ? args.now : Date.now(),
      visible: args.visible === true,
      report: new Set(Array.isArray(args.report) ? args.report.filter(isId) : []),
      budget:
        typeof args.budgetMs === 'number' && args.budgetMs > 0 ? args.budgetMs : Number.POSITIVE_INFINITY,
    });
    // A check of some links leaves the whole set's place as it was.
    if (!some) resumeAt = run.resumeAt;
    return run.resumeAt === undefined ? { results: run.results } : { results: run.results, partial: true };
  }

  return { update, check, size: () => entries.size };
}
