// Head and tail windows for discovery: listing thousands of sessions never reads whole files.
// Only complete lines inside a window are parsed; a line cut by the window edge is ignored.
import { Decompress } from 'fzstd';
import { readAt, type CatalogFs } from './fsio';
import type { Row } from './rules';

export const HEAD_BYTES = 64 * 1024;
export const HEAD_MAX_BYTES = 1024 * 1024;
export const TAIL_BYTES = 64 * 1024;

export function parseRow(line: string): Row | undefined {
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Row) : undefined;
  } catch {
    return undefined;
  }
}

/** Complete lines of buf; `skipFirst` drops the (possibly cut) first line of a tail window. */
export function rowsOf(buf: Buffer, skipFirst: boolean): Row[] {
  const rows: Row[] = [];
  let a = 0;
  if (skipFirst) {
    const nl = buf.indexOf(10);
    if (nl < 0) return rows;
    a = nl + 1;
  }
  for (;;) {
    const b = buf.indexOf(10, a);
    if (b < 0) break;
    if (b > a) {
      const r = parseRow(buf.toString('utf8', a, b));
      if (r) rows.push(r);
    }
    a = b + 1;
  }
  return rows;
}

/**
 * Rows from the start of a file, growing the window from HEAD_BYTES up to HEAD_MAX_BYTES until
 * `enough` says the rows read so far suffice.
 */
export function headRows(
  cfs: CatalogFs,
  file: string,
  size: number,
  enough: (rows: Row[]) => boolean,
): Row[] {
  let len = Math.min(size, HEAD_BYTES);
  for (;;) {
    const buf = readAt(cfs, file, 0, len);
    // A file without a trailing newline still ends its last row at end of file.
    const rows = rowsOf(
      len >= size && buf[buf.length - 1] !== 10 ? Buffer.concat([buf, Buffer.from('\n')]) : buf,
      false,
    );
    if (enough(rows) || len >= size || len >= HEAD_MAX_BYTES) return rows;
    len = Math.min(size, HEAD_MAX_BYTES);
  }
}

export function tailRows(cfs: CatalogFs, file: string, size: number, skipBefore: number): Row[] {
  const start = Math.max(skipBefore, size - TAIL_BYTES);
  if (start >= size) return [];
  const buf = readAt(cfs, file, start, size - start);
  return rowsOf(buf[buf.length - 1] === 10 ? buf : Buffer.concat([buf, Buffer.from('\n')]), start > 0);
}

/** The first `limit` decompressed bytes of a .zst file (streaming; stops early). */
export function zstdHead(cfs: CatalogFs, file: string, limit: number): Buffer {
  const out: Uint8Array[] = [];
  let total = 0;
  const d = new Decompress((chunk) => {
    out.push(chunk);
    total += chunk.length;
  });
  const size = cfs.statSync(file).size;
  let pos = 0;
  while (pos < size && total < limit) {
    const piece = readAt(cfs, file, pos, Math.min(256 * 1024, size - pos));
    if (piece.length === 0) break;
    pos += piece.length;
    d.push(piece, pos >= size);
  }
  const all = Buffer.concat(out);
  return all.length > limit ? all.subarray(0, limit) : all;
}

/** Decompressed size of a .zst file (streams through it once, keeping nothing). */
export function zstdSize(cfs: CatalogFs, file: string): number {
  let total = 0;
  const d = new Decompress((chunk) => {
    total += chunk.length;
  });
  const size = cfs.statSync(file).size;
  let pos = 0;
  while (pos < size) {
    const piece = readAt(cfs, file, pos, Math.min(256 * 1024, size - pos));
    if (piece.length === 0) break;
    pos += piece.length;
    d.push(piece, pos >= size);
  }
  return total;
}

export function oneLine(s: string, max = 200): string {
  // Only the start of a long text can show: collapse a prefix that surely holds `max` characters
  // (the result is the same as for the whole text), and copy the result out, so a title never
  // keeps a pasted prompt of megabytes alive (a slice of a string shares its memory).
  let t = '';
  for (let cut = max * 4; ; cut *= 4) {
    t = s.trimStart().slice(0, cut).trimEnd().replace(/\s+/g, ' ');
    if (t.length > max || cut >= s.length) break;
  }
  return JSON.parse(JSON.stringify(t.length > max ? `${t.slice(0, max - 1)}…` : t)) as string;
}

export function listDir(cfs: CatalogFs, dir: string): { name: string; dir: boolean; file: boolean }[] {
  try {
    return cfs
      .readdirSync(dir, { withFileTypes: true })
      .map((d) => ({ name: d.name, dir: d.isDirectory(), file: d.isFile() }));
  } catch {
    return [];
  }
}
