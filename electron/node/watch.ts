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
import type { MarkerFields, ProviderSource, SourceRef } from '../gateway/catalog/provider';
import { ANSWER_CAP, READ_CAP, isObject, type ErrorCode } from '../gateway/nodes/protocol';
import { OutsideRootsError } from './guard';
import { NodeError, errorText, type WireOutcome } from './errors';

/** Entries one watch or check request may set. */
export const MAX_SET = 2000;
/** Links one connection may watch. */
export const MAX_WATCHED = 50_000;

export interface Parsed {
  source: ProviderSource;
  ref: SourceRef;
  marker: MarkerFields;
  own: Set<string>;
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

/** `parse`: one link as the gateway sent it, checked (throws NodeError / OutsideRootsError). */
export function createWatchSet(parse: (item: Record<string, unknown>) => Parsed) {
  const entries = new Map<number, Entry>();
  /** Where a check that stopped early (budget, answer cap) left off: the next one starts there. */
  let resumeAt: number | undefined;

  /** Applies `set` and `drop`; a malformed request changes nothing. */
  function update(args: Record<string, unknown>): void {
    const set = args.set ?? [];
    const drop = args.drop ?? [];
    if (!Array.isArray(set) || set.length > MAX_SET) bad(`set must be an array of at most ${MAX_SET}`);
    if (!Array.isArray(drop) || !drop.every(isId)) bad('drop must be an array of link numbers');
    if (!set.every((i) => isObject(i) && isId(i.id)))
      bad('each entry of set must be an object with a positive integer id');
    for (const id of drop as number[]) entries.delete(id);
    const items = set as (Record<string, unknown> & { id: number })[];
    if (entries.size + items.filter((i) => !entries.has(i.id)).length > MAX_WATCHED)
      bad(`a node watches at most ${MAX_WATCHED} links per connection`);
    for (const item of items) {
      let e: Entry;
      try {
        e = parse(item);
      } catch (err) {
        const r = refusal(err);
        if (!r) throw err;
        e = { refused: r };
      }
      // Re-set: moved to the end, like a new one.
      entries.delete(item.id);
      entries.set(item.id, e);
    }
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

  /**
   * One check over the whole set: every source probed from its marker; the answer carries the
   * outcomes that are not idle, and those of `report` (links whose missing streak an idle outcome
   * resets) whatever they are. It stops early at `budgetMs` or at the answer cap (`partial`).
   */
  function check(args: Record<string, unknown>): { results: CheckResult[]; partial?: true } {
    update(args);
    const now = typeof args.now === 'number' && Number.isFinite(args.now) ? args.now : Date.now();
    const visible = args.visible === true;
    const report = new Set(Array.isArray(args.report) ? args.report.filter(isId) : []);
    const budget =
      typeof args.budgetMs === 'number' && args.budgetMs > 0 ? args.budgetMs : Number.POSITIVE_INFINITY;
    const started = performance.now();
    let order: Iterable<[number, Entry]> = entries;
    if (resumeAt !== undefined && entries.has(resumeAt)) {
      const all = [...entries];
      const cut = all.findIndex(([id]) => id === resumeAt);
      order = [...all.slice(cut), ...all.slice(0, cut)];
    }
    resumeAt = undefined;
    const used = new Set<ProviderSource>();
    const results: CheckResult[] = [];
    let size = 0;
    let first = true;
    try {
      for (const [id, e] of order) {
        // The first link always runs, so every check makes progress.
        if (!first && performance.now() - started > budget) {
          resumeAt = id;
          break;
        }
        first = false;
        let r = probeOne(e, now, visible, used);
        if (r.kind === 'idle' && !report.has(id)) continue;
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
    return resumeAt === undefined ? { results } : { results, partial: true };
  }

  return { update, check, size: () => entries.size };
}
