// Listing thousands of transcripts without parsing them (issue 31): a listing needs a handful of
// rows per file (the first prompt, the titles, the last time), so it looks for a row's JSON
// token in the raw bytes of a head or tail window (Buffer.indexOf, native memory search) and
// parses only the complete lines that hold one. A token written by JSON itself (`"summary"`,
// quotes unescaped) cannot occur inside a string value, where quotes are escaped (`\"`); a line
// that holds the token in a nested object is parsed and then rejected by the caller's check, as a
// full parse would. Only complete lines inside the window count, as in windows.ts.
import { readInto, type CatalogFs } from './fsio';
import type { Row } from './rules';
import { HEAD_BYTES, HEAD_MAX_BYTES, parseRow, TAIL_BYTES } from './windows';

/** The bytes of one window of a file and whether its edges cut a line. */
export interface Window {
  buf: Buffer;
  /** The window starts inside the file: its first line may be cut (tail windows). */
  cutStart: boolean;
  /** The window reaches the end of the file: a last line without a newline is complete. */
  atEof: boolean;
}

/** The complete line around byte `i` as [start, end), or undefined when the window cuts it. */
function lineAt(w: Window, i: number): [number, number] | undefined {
  const start = i === 0 ? 0 : w.buf.lastIndexOf(10, i - 1) + 1;
  if (start === 0 && w.cutStart) return undefined;
  let end = w.buf.indexOf(10, i);
  if (end < 0) {
    if (!w.atEof) return undefined;
    end = w.buf.length;
  }
  return [start, end];
}

function rowOf(w: Window, line: [number, number]): Row | undefined {
  return line[1] > line[0] ? parseRow(w.buf.toString('utf8', line[0], line[1])) : undefined;
}

/** The first value `pick` finds among the rows holding `token`, from the window's start. */
export function firstWith<T>(w: Window, token: Buffer, pick: (r: Row) => T | undefined): T | undefined {
  let i = w.buf.indexOf(token);
  while (i >= 0) {
    const line = lineAt(w, i);
    let next = i + token.length;
    if (line) {
      const r = rowOf(w, line);
      const v = r && pick(r);
      if (v !== undefined) return v;
      next = line[1] + 1;
    }
    i = w.buf.indexOf(token, next);
  }
  return undefined;
}

/** The first value `pick` finds among the rows holding `token`, from the window's end. */
export function lastWith<T>(w: Window, token: Buffer, pick: (r: Row) => T | undefined): T | undefined {
  let i = w.buf.lastIndexOf(token);
  while (i >= 0) {
    const line = lineAt(w, i);
    let before = i - 1;
    if (line) {
      const r = rowOf(w, line);
      const v = r && pick(r);
      if (v !== undefined) return v;
      before = line[0] - 1;
    }
    if (before < 0) return undefined;
    i = w.buf.lastIndexOf(token, before);
  }
  return undefined;
}

const TYPE_FIRST = Buffer.from('{"type":"');

/**
 * Rows whose line starts with `{"type":"<one of types>"`, in window order: how Claude Code writes
 * its small bookkeeping rows (titles, summaries: `JSON.stringify({ type, … })`). Only the first
 * bytes of each line are compared, so a window costs one newline search per line.
 */
export function typedRows(w: Window, types: ReadonlySet<string>): Row[] {
  const rows: Row[] = [];
  let a = w.cutStart ? w.buf.indexOf(10) + 1 : 0;
  if (w.cutStart && a === 0) return rows;
  for (;;) {
    let b = w.buf.indexOf(10, a);
    if (b < 0) {
      if (!w.atEof || a >= w.buf.length) break;
      b = w.buf.length;
    }
    const v = a + TYPE_FIRST.length;
    if (b > v && w.buf.compare(TYPE_FIRST, 0, TYPE_FIRST.length, a, v) === 0) {
      const q = w.buf.indexOf(34, v);
      if (q > 0 && q < b && types.has(w.buf.toString('latin1', v, q))) {
        const r = rowOf(w, [a, b]);
        if (r) rows.push(r);
      }
    }
    a = b + 1;
  }
  return rows;
}

const TIMESTAMP = Buffer.from('"timestamp"');

/**
 * The time of the last `"timestamp": "<ISO time>"` in the window, read without parsing its row
 * (the last rows of a transcript are often its largest: tool output, long replies).
 */
export function lastTimestamp(w: Window): number | undefined {
  let i = w.buf.lastIndexOf(TIMESTAMP);
  while (i >= 0) {
    let j = i + TIMESTAMP.length;
    while (j < w.buf.length && (w.buf[j] === 32 || w.buf[j] === 58)) j++;
    const end = w.buf[j] === 34 ? w.buf.indexOf(34, j + 1) : -1;
    if (end > j && end - j < 40) {
      const t = Date.parse(w.buf.toString('latin1', j + 1, end));
      if (Number.isFinite(t)) return t;
    }
    if (i === 0) return undefined;
    i = w.buf.lastIndexOf(TIMESTAMP, i - 1);
  }
  return undefined;
}

// One scratch buffer per window kind, reused file after file: a listing allocates nothing per
// file but the few rows it parses (their strings are copies, so reuse is safe).
const scratch = { head: Buffer.allocUnsafeSlow(HEAD_BYTES), tail: Buffer.allocUnsafeSlow(TAIL_BYTES) };

/**
 * The head and tail windows of a file, read through one descriptor. The head grows from
 * HEAD_BYTES to HEAD_MAX_BYTES when `enough` says its first window lacks what the listing needs.
 * A file no longer than a window is read once and is both windows. Valid until the next call.
 */
export function headAndTail(
  cfs: CatalogFs,
  file: string,
  size: number,
  enough: (head: Window) => boolean,
): { head: Window; tail: Window } {
  const fd = cfs.openSync(file, 'r');
  try {
    const len = Math.min(size, HEAD_BYTES);
    let head: Window = { buf: readInto(cfs, fd, scratch.head, 0, len), cutStart: false, atEof: len >= size };
    if (!head.atEof && !enough(head)) {
      const big = Math.min(size, HEAD_MAX_BYTES);
      head = { buf: readInto(cfs, fd, Buffer.allocUnsafe(big), 0, big), cutStart: false, atEof: big >= size };
    }
    if (size <= TAIL_BYTES) return { head, tail: head };
    const start = size - TAIL_BYTES;
    const tail = { buf: readInto(cfs, fd, scratch.tail, start, TAIL_BYTES), cutStart: true, atEof: true };
    return { head, tail };
  } finally {
    cfs.closeSync(fd);
  }
}
