// One monitor check of a local JSONL transcript (Claude Code, Codex, Pi). Reads only what was
// added since the marker, at most one window (1 MiB) per check, classifies complete lines only,
// and never moves the marker past a byte it did not classify. A row longer than the window is
// classified incrementally by the streaming scanner across checks; its bounded state travels in
// the marker. A file that shrank or was replaced is re-baselined, never parsed from a stale offset.
import { isNotFound, inodeOf, readAt, utf8SafeEnd, type CatalogFs } from './fsio';
import { newScan, scanFeed, scanFinish, type ScanState } from './row-scanner';
import type { VisibleMessage } from '../provider';
import type { Row, RowRules } from './rules';
import { printKey, textKey } from './text';

export const WINDOW_BYTES = 1024 * 1024;

export interface JsonlMarker {
  /** Start of the first byte not yet classified (always a line start). */
  offset: number;
  /** dev:ino of the file the offset belongs to. */
  ino: string | null;
  /** An oversized row being scanned: bytes [offset, at) are already fed to the scanner. */
  pend?: { at: number; st: ScanState } | null;
  /** Identities (RowRules.identity) of the last human rows counted, newest last. */
  seen?: string[];
}

/** How many counted identities a marker remembers. */
export const SEEN_KEPT = 16;

export type ProbeOutcome =
  | { kind: 'missing' }
  | { kind: 'inconclusive'; error: unknown }
  | { kind: 'rebaseline'; next: JsonlMarker; reason: 'replaced' | 'shrunk' }
  | {
      kind: 'activity';
      turns: number;
      next: JsonlMarker;
      changed: boolean;
      occurredAt?: number;
      echoes: number;
      malformed: number;
      /** With `visible`: the messages of the rows consumed (offset to next.offset), in order. */
      messages?: VisibleMessage[];
    };

export interface ProbeInput {
  file: string;
  marker: JsonlMarker;
  rules: RowRules;
  /** Text keys (text.ts) of the session's recent own texts. */
  ownTexts: { has(key: string): boolean };
  fs: CatalogFs;
  windowBytes?: number;
  /** Called when the file is not found: true when it exists elsewhere (Codex .zst / archive). */
  existsElsewhere?: () => boolean;
  /** Also map the consumed rows to visible messages. */
  visible?: boolean;
}

interface Tally {
  turns: number;
  echoes: number;
  malformed: number;
  occurredAt?: number;
  /** Text keys of the rows counted in this check. */
  keys: Set<string>;
  /** Identities counted before (from the marker) and in this check, in order. */
  seen: string[];
  /** Steering rows: counted at the end unless a counted row of this check has the same text. */
  steering: { key: string | undefined; when: number | undefined }[];
}

function counted(t: Tally, when: number | undefined): void {
  t.turns++;
  if (when !== undefined && (t.occurredAt === undefined || when > t.occurredAt)) t.occurredAt = when;
}

type Verdict = 'other' | 'malformed' | 'repeat' | 'echo' | 'human';

function countRow(
  t: Tally,
  rules: RowRules,
  row: Row | undefined,
  key: () => string | undefined,
  own: { has(key: string): boolean },
): Verdict {
  if (!row) {
    t.malformed++;
    return 'malformed';
  }
  const steering = rules.steering?.(row) === true;
  if (!steering && !rules.human(row)) return 'other';
  const id = rules.identity?.(row);
  if (id !== undefined) {
    if (t.seen.includes(id)) return 'repeat';
    t.seen.push(id);
  }
  const k = key();
  if (k !== undefined && own.has(k)) {
    t.echoes++;
    return 'echo';
  }
  if (steering) {
    t.steering.push({ key: k, when: rules.time(row) });
    return 'human';
  }
  if (k !== undefined) t.keys.add(k);
  counted(t, rules.time(row));
  return 'human';
}

/** The row's visible message for a live transcript (a repeated row shows once, an echo is marked). */
function show(out: VisibleMessage[] | undefined, rules: RowRules, row: Row | undefined, v: Verdict): void {
  if (!out || !row || v === 'repeat' || v === 'malformed') return;
  const m = rules.visible(row);
  if (m) out.push(v === 'echo' && m.role === 'user' ? { ...m, own: true } : m);
}

function settleSteering(t: Tally): void {
  for (const s of t.steering) if (s.key === undefined || !t.keys.has(s.key)) counted(t, s.when);
  t.steering = [];
}

function parseLine(buf: Buffer, a: number, b: number): Row | undefined {
  try {
    const v: unknown = JSON.parse(buf.toString('utf8', a, b));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Row) : undefined;
  } catch {
    return undefined;
  }
}

/** An activity with no new turns: only the marker may have moved. */
function quiet(next: JsonlMarker, changed: boolean): ProbeOutcome {
  return { kind: 'activity', turns: 0, next, changed, echoes: 0, malformed: 0 };
}

/**
 * The file's size and inode, or the outcome when it is gone: missing, or (compressed or archived)
 * the same bytes live on under another name. The next plain file (Codex decompresses before
 * appending) continues at the same offset, whatever its inode.
 */
function statOrOutcome(input: ProbeInput): { size: number; ino: string } | ProbeOutcome {
  try {
    const st = input.fs.statSync(input.file);
    return { size: st.size, ino: inodeOf(st) };
  } catch (err) {
    if (!isNotFound(err)) return { kind: 'inconclusive', error: err };
    try {
      if (input.existsElsewhere?.()) return quiet({ ...input.marker, ino: null }, input.marker.ino !== null);
    } catch (e) {
      return { kind: 'inconclusive', error: e };
    }
    return { kind: 'missing' };
  }
}

/** Counts (and shows) every whole row in buf[from, to]; `to` is a newline. */
function countLines(
  input: ProbeInput,
  tally: Tally,
  messages: VisibleMessage[] | undefined,
  buf: Buffer,
  from: number,
  to: number,
): void {
  const { rules, ownTexts } = input;
  let a = from;
  while (a <= to) {
    const b = buf.indexOf(10, a);
    if (b > a) {
      const row = parseLine(buf, a, b);
      const v = countRow(
        tally,
        rules,
        row,
        () => {
          const t = row ? rules.text(row) : undefined;
          return t === undefined ? undefined : textKey(t);
        },
        ownTexts,
      );
      show(messages, rules, row, v);
    }
    a = b + 1;
  }
}

export function probeJsonl(input: ProbeInput): ProbeOutcome {
  const { file, marker, rules, ownTexts, fs: cfs } = input;
  const windowBytes = input.windowBytes ?? WINDOW_BYTES;
  const stat = statOrOutcome(input);
  if ('kind' in stat) return stat;
  const { size, ino } = stat;
  if (marker.ino !== null && marker.ino !== ino)
    return { kind: 'rebaseline', next: { offset: size, ino, pend: null }, reason: 'replaced' };
  const pos = marker.pend ? marker.pend.at : marker.offset;
  if (size < pos) return { kind: 'rebaseline', next: { offset: size, ino, pend: null }, reason: 'shrunk' };
  const inoChanged = marker.ino === null;
  if (size === pos) return quiet({ ...marker, ino }, inoChanged);

  let buf: Buffer;
  try {
    buf = readAt(cfs, file, pos, Math.min(windowBytes, size - pos));
  } catch (err) {
    if (isNotFound(err)) return { kind: 'missing' };
    return { kind: 'inconclusive', error: err };
  }
  const seenBefore = marker.seen ?? [];
  const tally: Tally = {
    turns: 0,
    echoes: 0,
    malformed: 0,
    keys: new Set(),
    steering: [],
    seen: [...seenBefore],
  };
  const messages: VisibleMessage[] | undefined = input.visible ? [] : undefined;
  let offset = marker.offset;
  let pend = marker.pend ?? null;
  let cur = 0;

  if (pend) {
    const nl = buf.indexOf(10);
    const end = nl >= 0 ? nl : utf8SafeEnd(buf, buf.length);
    const st: ScanState = structuredClone(pend.st);
    scanFeed(st, rules.scan, buf.toString('utf8', 0, end));
    // Nothing consumed (the file ends inside a UTF-8 character): report no change.
    if (nl < 0) return quiet({ offset, ino, pend: { at: pos + end, st } }, end > 0 || inoChanged);
    const res = scanFinish(st, rules.scan);
    show(
      messages,
      rules,
      res.row,
      countRow(tally, rules, res.row, () => printKey(res.print), ownTexts),
    );
    cur = nl + 1;
    offset = pos + cur;
    pend = null;
  }

  const lastNl = buf.lastIndexOf(10);
  if (lastNl >= cur) {
    countLines(input, tally, messages, buf, cur, lastNl);
    offset = pos + lastNl + 1;
    cur = lastNl + 1;
  } else if (cur === 0 && buf.length >= windowBytes) {
    // One row longer than the whole window: start classifying it incrementally.
    const end = utf8SafeEnd(buf, buf.length);
    const st = newScan();
    scanFeed(st, rules.scan, buf.toString('utf8', 0, end));
    pend = { at: pos + end, st };
  }
  settleSteering(tally);
  const seen = tally.seen.slice(-SEEN_KEPT);
  const next: JsonlMarker = { offset, ino, pend, ...(seen.length ? { seen } : {}) };
  const changed =
    inoChanged ||
    offset !== marker.offset ||
    pend !== (marker.pend ?? null) ||
    seen.join('\n') !== seenBefore.join('\n');
  const { keys: _keys, steering: _steering, seen: _seen, ...figures } = tally;
  return { kind: 'activity', ...figures, next, changed, ...(messages ? { messages } : {}) };
}
