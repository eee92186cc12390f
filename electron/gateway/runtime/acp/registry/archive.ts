// Unpacking an agent archive from the registry (.tar.gz and .zip, the formats its entries use)
// into one folder, as hostile input: no entry may land outside the folder (absolute paths, `..`,
// drive letters, backslashes, NUL), no hard links or device files, symbolic links only to a place
// inside the folder and created last (so nothing is ever written through one), setuid bits
// dropped, entry count and unpacked size bounded, and a damaged archive (bad gzip stream, CRC
// mismatch, truncated entry) refused. Written over node:zlib, without a dependency.
// tar: ustar with pax (`x`, `g`) and GNU long-name (`L`, `K`) headers. zip: stored and deflated
// entries, no ZIP64, no encryption.
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import zlib from 'node:zlib';

export interface ExtractLimits {
  maxEntries: number;
  maxBytes: number;
}

export const DEFAULT_LIMITS: ExtractLimits = { maxEntries: 20_000, maxBytes: 2 * 1024 * 1024 * 1024 };

export class ArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveError';
  }
}

export type ArchiveKind = 'tar.gz' | 'zip';

/** The format from the archive URL's path. */
export function archiveKind(url: string): ArchiveKind {
  const p = new URL(url).pathname.toLowerCase();
  if (p.endsWith('.tar.gz') || p.endsWith('.tgz')) return 'tar.gz';
  if (p.endsWith('.zip')) return 'zip';
  throw new ArchiveError(`unsupported archive format: ${path.posix.basename(p)} (expected .tar.gz or .zip)`);
}

export interface Extracted {
  files: number;
  bytes: number;
  /** Paths (relative, `/`-separated) of regular files whose archive carried no Unix mode. */
  modeless: string[];
}

/** The safe relative path of an entry, or throws. Directories end without a slash. */
export function safeEntryPath(name: string): string {
  if (name.includes('\0')) throw new ArchiveError('an entry name contains NUL');
  const unified = name.replace(/\\/g, '/');
  if (unified.startsWith('/') || /^[A-Za-z]:/.test(unified))
    throw new ArchiveError(`entry "${name}" has an absolute path`);
  const parts = unified.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.some((p) => p === '..')) throw new ArchiveError(`entry "${name}" points outside the folder`);
  return parts.join('/');
}

function isInside(root: string, target: string): boolean {
  const r = path.relative(root, target);
  return !(r.startsWith('..') || path.isAbsolute(r));
}

function inside(root: string, rel: string): string {
  const target = path.resolve(root, rel);
  if (!isInside(root, target)) throw new ArchiveError(`entry "${rel}" points outside the folder`);
  return target;
}

class Budget {
  entries = 0;
  bytes = 0;
  constructor(private readonly limits: ExtractLimits) {}
  entry(): void {
    if (++this.entries > this.limits.maxEntries)
      throw new ArchiveError(`the archive has more than ${this.limits.maxEntries} entries`);
  }
  add(n: number): void {
    this.bytes += n;
    if (this.bytes > this.limits.maxBytes)
      throw new ArchiveError(`the archive unpacks to more than ${this.limits.maxBytes} bytes`);
  }
}

interface PendingLink {
  at: string;
  target: string;
}

/** Creates the links once every file exists; each must resolve inside the folder. */
function makeLinks(root: string, links: PendingLink[]): void {
  for (const l of links) {
    if (path.isAbsolute(l.target) || l.target.includes('\0'))
      throw new ArchiveError(`link "${l.at}" points outside the folder`);
    // A link under another link would be resolved from where that one points, not where it seems.
    const parts = l.at.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) {
      if (fs.lstatSync(path.join(root, ...parts.slice(0, i)), { throwIfNoEntry: false })?.isSymbolicLink())
        throw new ArchiveError(`link "${l.at}" lies under another link (not allowed)`);
    }
    const at = inside(root, l.at);
    if (!isInside(root, path.resolve(path.dirname(at), l.target)))
      throw new ArchiveError(`link "${l.at}" points outside the folder`);
    fs.mkdirSync(path.dirname(at), { recursive: true });
    fs.symlinkSync(l.target, at);
  }
}

/** Writes a file, refusing to follow anything already there (a link could point anywhere). */
function createFile(root: string, rel: string, mode: number): number {
  const at = inside(root, rel);
  fs.mkdirSync(path.dirname(at), { recursive: true });
  fs.rmSync(at, { force: true });
  return fs.openSync(at, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, mode & 0o777);
}

export async function extract(
  file: string,
  kind: ArchiveKind,
  dest: string,
  limits: ExtractLimits = DEFAULT_LIMITS,
): Promise<Extracted> {
  fs.mkdirSync(dest, { recursive: true });
  const root = fs.realpathSync(dest);
  return kind === 'zip' ? extractZip(file, root, limits) : extractTarGz(file, root, limits);
}

// ---------------------------------------------------------------------------------------------
// tar.gz: gunzip into a temporary .tar (bounded), then walk its 512-byte headers.
// ---------------------------------------------------------------------------------------------

function counter(budget: Budget): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      try {
        budget.add(chunk.length);
        done(null, chunk);
      } catch (err) {
        done(err as Error);
      }
    },
  });
}

async function extractTarGz(file: string, root: string, limits: ExtractLimits): Promise<Extracted> {
  const tar = path.join(path.dirname(root), `.${path.basename(root)}.tar`);
  try {
    // The unpacked tar counts against the size budget too: a gzip bomb stops here.
    await pipeline(
      fs.createReadStream(file),
      zlib.createGunzip(),
      counter(new Budget(limits)),
      fs.createWriteStream(tar),
    );
  } catch (err) {
    fs.rmSync(tar, { force: true });
    if (err instanceof ArchiveError) throw err;
    throw new ArchiveError(`the archive is damaged: ${(err as Error).message}`);
  }
  try {
    return readTar(tar, root, limits);
  } finally {
    fs.rmSync(tar, { force: true });
  }
}

const cstr = (b: Buffer, from: number, len: number) => {
  const s = b.subarray(from, from + len);
  const nul = s.indexOf(0);
  return s.subarray(0, nul < 0 ? s.length : nul).toString('utf8');
};

function octal(b: Buffer, from: number, len: number, what: string): number {
  const s = cstr(b, from, len).trim();
  if (s === '') return 0;
  if (!/^[0-7]+$/.test(s)) throw new ArchiveError(`the archive is damaged: bad ${what} field`);
  return parseInt(s, 8);
}

function checksumOk(h: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
  return sum === octal(h, 148, 8, 'checksum');
}

function parsePax(data: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let at = 0;
  while (at < data.length) {
    const sp = data.indexOf(0x20, at);
    if (sp < 0) break;
    const len = Number(data.subarray(at, sp).toString('ascii'));
    if (!Number.isSafeInteger(len) || len <= 0 || at + len > data.length)
      throw new ArchiveError('the archive is damaged: bad pax header');
    const record = data.subarray(sp + 1, at + len - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq > 0) out[record.slice(0, eq)] = record.slice(eq + 1);
    at += len;
  }
  return out;
}

function readTar(tar: string, root: string, limits: ExtractLimits): Extracted {
  const fd = fs.openSync(tar, 'r');
  const size = fs.fstatSync(fd).size;
  const budget = new Budget(limits);
  const links: PendingLink[] = [];
  const header = Buffer.alloc(512);
  const read = (buf: Buffer, pos: number) => {
    if (fs.readSync(fd, buf, 0, buf.length, pos) !== buf.length)
      throw new ArchiveError('the archive is damaged: it ends inside an entry');
  };
  let pos = 0;
  let files = 0;
  let longName: string | undefined;
  let longLink: string | undefined;
  let pax: Record<string, string> = {};
  let globalPax: Record<string, string> = {};
  try {
    for (;;) {
      if (pos + 512 > size) throw new ArchiveError('the archive is damaged: no end-of-archive marker');
      read(header, pos);
      pos += 512;
      if (header.every((b) => b === 0)) break;
      if (!checksumOk(header)) throw new ArchiveError('the archive is damaged: header checksum mismatch');
      budget.entry();
      const type = header[156] === 0 ? '0' : String.fromCharCode(header[156]!);
      const prefix = header.subarray(257, 262).toString('ascii') === 'ustar' ? cstr(header, 345, 155) : '';
      const meta = { ...globalPax, ...pax };
      const name =
        longName ?? meta.path ?? (prefix ? `${prefix}/${cstr(header, 0, 100)}` : cstr(header, 0, 100));
      const linkName = longLink ?? meta.linkpath ?? cstr(header, 157, 100);
      const bodySize = meta.size !== undefined ? Number(meta.size) : octal(header, 124, 12, 'size');
      if (!Number.isSafeInteger(bodySize) || bodySize < 0 || pos + bodySize > size)
        throw new ArchiveError('the archive is damaged: an entry is larger than the archive');
      const mode = octal(header, 100, 8, 'mode');
      const padded = Math.ceil(bodySize / 512) * 512;
      const body = () => {
        const b = Buffer.alloc(bodySize);
        read(b, pos);
        return b;
      };
      const isMeta = type === 'x' || type === 'g' || type === 'L' || type === 'K';
      if (!isMeta) {
        longName = longLink = undefined;
        pax = {};
      }
      switch (type) {
        case 'x':
          pax = parsePax(body());
          break;
        case 'g':
          globalPax = { ...globalPax, ...parsePax(body()) };
          break;
        case 'L':
          longName = cstr(body(), 0, bodySize);
          break;
        case 'K':
          longLink = cstr(body(), 0, bodySize);
          break;
        case '5': {
          const rel = safeEntryPath(name);
          if (rel) fs.mkdirSync(inside(root, rel), { recursive: true });
          break;
        }
        case '2':
          links.push({ at: safeEntryPath(name), target: linkName });
          break;
        case '0':
        case '7': {
          const rel = safeEntryPath(name);
          if (!rel) throw new ArchiveError('a file entry has an empty name');
          budget.add(bodySize);
          const out = createFile(root, rel, mode & 0o777 || 0o644);
          try {
            const chunk = Buffer.alloc(Math.min(bodySize, 1024 * 1024) || 1);
            for (let done = 0; done < bodySize;) {
              const n = Math.min(chunk.length, bodySize - done);
              read(chunk.subarray(0, n), pos + done);
              fs.writeSync(out, chunk, 0, n);
              done += n;
            }
          } finally {
            fs.closeSync(out);
          }
          files++;
          break;
        }
        case '1':
          throw new ArchiveError(`entry "${name}" is a hard link (not allowed)`);
        default:
          throw new ArchiveError(
            `entry "${name}" has unsupported type "${type}" (devices and FIFOs are not allowed)`,
          );
      }
      pos += padded;
    }
    makeLinks(root, links);
  } finally {
    fs.closeSync(fd);
  }
  return { files, bytes: budget.bytes, modeless: [] };
}

// ---------------------------------------------------------------------------------------------
// zip: the central directory, then each entry from its local header (stored or deflated).
// ---------------------------------------------------------------------------------------------

const EOCD = 0x06054b50;
const CEN = 0x02014b50;
const LOC = 0x04034b50;

interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  crc: number;
  compressed: number;
  size: number;
  local: number;
  /** Unix mode bits when the archive was made on a Unix host. */
  unixMode?: number;
}

function readZipDirectory(fd: number, size: number, budget: Budget): ZipEntry[] {
  const tailLen = Math.min(size, 22 + 0xffff);
  const tail = Buffer.alloc(tailLen);
  fs.readSync(fd, tail, 0, tailLen, size - tailLen);
  let eocd = -1;
  for (let i = tailLen - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new ArchiveError('the archive is damaged: no zip directory');
  const count = tail.readUInt16LE(eocd + 10);
  const dirSize = tail.readUInt32LE(eocd + 12);
  const dirAt = tail.readUInt32LE(eocd + 16);
  if (count === 0xffff || dirAt === 0xffffffff) throw new ArchiveError('ZIP64 archives are not supported');
  if (dirAt + dirSize > size) throw new ArchiveError('the archive is damaged: the directory is out of range');
  const dir = Buffer.alloc(dirSize);
  fs.readSync(fd, dir, 0, dirSize, dirAt);
  const entries: ZipEntry[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    if (at + 46 > dir.length || dir.readUInt32LE(at) !== CEN)
      throw new ArchiveError('the archive is damaged: bad directory entry');
    budget.entry();
    const host = dir.readUInt8(at + 5);
    const nameLen = dir.readUInt16LE(at + 28);
    const extraLen = dir.readUInt16LE(at + 30);
    const commentLen = dir.readUInt16LE(at + 32);
    const external = dir.readUInt32LE(at + 38);
    const entry: ZipEntry = {
      flags: dir.readUInt16LE(at + 8),
      method: dir.readUInt16LE(at + 10),
      crc: dir.readUInt32LE(at + 16),
      compressed: dir.readUInt32LE(at + 20),
      size: dir.readUInt32LE(at + 24),
      local: dir.readUInt32LE(at + 42),
      name: dir.subarray(at + 46, at + 46 + nameLen).toString('utf8'),
      ...(host === 3 ? { unixMode: external >>> 16 } : {}),
    };
    if (entry.compressed === 0xffffffff || entry.size === 0xffffffff || entry.local === 0xffffffff)
      throw new ArchiveError('ZIP64 archives are not supported');
    entries.push(entry);
    at += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

async function extractZip(file: string, root: string, limits: ExtractLimits): Promise<Extracted> {
  const fd = fs.openSync(file, 'r');
  const size = fs.fstatSync(fd).size;
  const budget = new Budget(limits);
  const links: PendingLink[] = [];
  const modeless: string[] = [];
  let files = 0;
  try {
    for (const e of readZipDirectory(fd, size, budget)) {
      const rel = safeEntryPath(e.name);
      const type = e.unixMode !== undefined ? e.unixMode & 0o170000 : 0;
      const isDir = e.name.endsWith('/') || type === 0o040000;
      if (isDir) {
        if (rel) fs.mkdirSync(inside(root, rel), { recursive: true });
        continue;
      }
      if (e.flags & 1) throw new ArchiveError(`entry "${e.name}" is encrypted`);
      if (type !== 0 && type !== 0o100000 && type !== 0o120000)
        throw new ArchiveError(`entry "${e.name}" is not a regular file (devices and FIFOs are not allowed)`);
      if (e.method !== 0 && e.method !== 8)
        throw new ArchiveError(
          `entry "${e.name}" uses compression method ${e.method} (only stored and deflated)`,
        );
      if (!rel) throw new ArchiveError('a file entry has an empty name');
      const head = Buffer.alloc(30);
      fs.readSync(fd, head, 0, 30, e.local);
      if (head.readUInt32LE(0) !== LOC)
        throw new ArchiveError(`the archive is damaged: bad local header for "${e.name}"`);
      const dataAt = e.local + 30 + head.readUInt16LE(26) + head.readUInt16LE(28);
      if (dataAt + e.compressed > size)
        throw new ArchiveError(`the archive is damaged: "${e.name}" is truncated`);
      budget.add(e.size);
      const body = await readZipData(file, dataAt, e);
      if (type === 0o120000) {
        links.push({ at: rel, target: body.toString('utf8') });
        continue;
      }
      const out = createFile(root, rel, e.unixMode !== undefined ? e.unixMode : 0o644);
      try {
        fs.writeSync(out, body);
      } finally {
        fs.closeSync(out);
      }
      if (e.unixMode === undefined) modeless.push(rel);
      files++;
    }
    makeLinks(root, links);
  } finally {
    fs.closeSync(fd);
  }
  return { files, bytes: budget.bytes, modeless };
}

/** One entry's bytes, inflated and checked against its size and CRC-32. */
async function readZipData(file: string, at: number, e: ZipEntry): Promise<Buffer> {
  const raw = Buffer.alloc(e.compressed);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, raw, 0, e.compressed, at);
  } finally {
    fs.closeSync(fd);
  }
  let data: Buffer;
  try {
    data = e.method === 0 ? raw : zlib.inflateRawSync(raw, { maxOutputLength: Math.max(1, e.size) });
  } catch (err) {
    throw new ArchiveError(
      `the archive is damaged: "${e.name}" does not inflate (${(err as Error).message})`,
    );
  }
  if (data.length !== e.size)
    throw new ArchiveError(`the archive is damaged: "${e.name}" has the wrong size`);
  if (zlib.crc32(data) !== e.crc)
    throw new ArchiveError(`the archive is damaged: CRC mismatch in "${e.name}"`);
  return data;
}
