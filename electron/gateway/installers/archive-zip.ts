// zip for archive.ts: the central directory, then each entry from its local header (stored or
// deflated; no ZIP64, no encryption).
import fs from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import {
  ArchiveError,
  Budget,
  createFile,
  inside,
  makeLinks,
  safeEntryPath,
  type Extracted,
  type ExtractLimits,
  type PendingLink,
} from './archive-rules';

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

export async function extractZip(file: string, root: string, limits: ExtractLimits): Promise<Extracted> {
  const fd = fs.openSync(file, 'r');
  const size = fs.fstatSync(fd).size;
  const budget = new Budget(limits, size);
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
      if (type === 0o120000) {
        if (e.size > MAX_LINK) throw new ArchiveError(`link "${e.name}" is too long`);
        links.push({ at: rel, target: (await readZipData(file, dataAt, e)).toString('utf8') });
        continue;
      }
      const out = createFile(root, rel, e.unixMode !== undefined ? e.unixMode : 0o644);
      await unpackZipData(file, dataAt, e, out);
      if (e.unixMode === undefined) modeless.push(rel);
      files++;
    }
    makeLinks(root, links);
  } finally {
    fs.closeSync(fd);
  }
  return { files, bytes: budget.bytes, modeless };
}

const MAX_LINK = 4096;

/**
 * One file entry, streamed into `out` (closed here): read, inflated by zlib on its thread pool (no
 * entry is ever whole in memory, the gateway's main thread never inflates), stopped the moment it
 * passes its declared size, checked against its size and CRC-32.
 */
async function unpackZipData(file: string, at: number, e: ZipEntry, out: number): Promise<void> {
  let written = 0;
  let crc = 0;
  const check = new Transform({
    transform(chunk: Buffer, _enc, done) {
      written += chunk.length;
      if (written > e.size)
        return done(new ArchiveError(`the archive is damaged: "${e.name}" has the wrong size`));
      crc = zlib.crc32(chunk, crc);
      done(null, chunk);
    },
  });
  const source = fs.createReadStream(file, { start: at, end: at + e.compressed - 1 });
  const sink = fs.createWriteStream('', { fd: out });
  try {
    if (e.method === 0) await pipeline(source, check, sink);
    else await pipeline(source, zlib.createInflateRaw(), check, sink);
  } catch (err) {
    if (err instanceof ArchiveError) throw err;
    throw new ArchiveError(
      `the archive is damaged: "${e.name}" does not inflate (${(err as Error).message})`,
    );
  }
  if (written !== e.size) throw new ArchiveError(`the archive is damaged: "${e.name}" has the wrong size`);
  if (crc !== e.crc) throw new ArchiveError(`the archive is damaged: CRC mismatch in "${e.name}"`);
}

/** A small entry's bytes (a link's target), inflated and checked against its size and CRC-32. */
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
