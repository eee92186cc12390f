// The few synchronous file operations the catalog uses, behind an interface so tests can inject
// I/O errors (tests run as root, where chmod 000 does not produce EACCES).
import fs from 'node:fs';

export interface CatalogFs {
  statSync(p: string): fs.Stats;
  openSync(p: string, flags: string): number;
  readSync(fd: number, buf: Buffer, off: number, len: number, pos: number): number;
  closeSync(fd: number): void;
  readdirSync(p: string, opts: { withFileTypes: true }): fs.Dirent[];
}

export const nodeFs: CatalogFs = {
  statSync: (p) => fs.statSync(p),
  openSync: (p, flags) => fs.openSync(p, flags),
  readSync: (fd, buf, off, len, pos) => fs.readSync(fd, buf, off, len, pos),
  closeSync: (fd) => fs.closeSync(fd),
  readdirSync: (p, opts) => fs.readdirSync(p, opts),
};

export function errCode(err: unknown): string | undefined {
  const c = (err as { code?: unknown } | null)?.code;
  return typeof c === 'string' ? c : undefined;
}

export function isNotFound(err: unknown): boolean {
  const c = errCode(err);
  return c === 'ENOENT' || c === 'ENOTDIR';
}

/** Reads up to `len` bytes at `pos` (fewer at end of file). */
export function readAt(cfs: CatalogFs, file: string, pos: number, len: number): Buffer {
  const fd = cfs.openSync(file, 'r');
  try {
    return readInto(cfs, fd, Buffer.allocUnsafe(len), pos, len);
  } finally {
    cfs.closeSync(fd);
  }
}

/** Reads up to `len` bytes at `pos` of an open file into the start of `buf`: the part filled. */
export function readInto(cfs: CatalogFs, fd: number, buf: Buffer, pos: number, len: number): Buffer {
  let got = 0;
  while (got < len) {
    const n = cfs.readSync(fd, buf, got, len - got, pos + got);
    if (n <= 0) break;
    got += n;
  }
  return got === buf.length ? buf : buf.subarray(0, got);
}

/** A file's stamp for the catalog index: the reader's format version, size, mtime and inode. */
export function fileStamp(cfs: CatalogFs, file: string, format: string): string {
  return statStamp(cfs.statSync(file), format);
}

export function statStamp(st: fs.Stats, format: string): string {
  return `${format}:${st.size}:${st.mtimeMs}:${st.dev}:${st.ino}`;
}

export function inodeOf(st: fs.Stats): string {
  return `${st.dev}:${st.ino}`;
}

/** End of the longest prefix of buf[0..end) that does not cut a UTF-8 sequence. */
export function utf8SafeEnd(buf: Buffer, end: number): number {
  let cont = 0;
  let i = end - 1;
  while (i >= 0 && cont < 3 && (buf[i]! & 0xc0) === 0x80) {
    cont++;
    i--;
  }
  if (i < 0) return end;
  const lead = buf[i]!;
  if (lead < 0xc0) return end;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
  return end - i < need ? i : end;
}
