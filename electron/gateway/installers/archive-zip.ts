// zip for archive-unpack.ts, read with yauzl (a streaming zip reader the npm ecosystem trusts): its
// central directory and local headers, ZIP64, deflate, and each entry's declared size. The rules
// (names, types, budget, links, CRC-32) are ours: names are decoded without yauzl's own check so
// that every refusal says the same thing for a zip as for a tar.
import fs from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import yauzl from 'yauzl';
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

const MAX_LINK = 4096;
const UNIX_HOST = 3;

const damaged = (err: unknown) =>
  err instanceof ArchiveError ? err : new ArchiveError(`the archive is damaged: ${(err as Error).message}`);

export async function extractZip(file: string, root: string, limits: ExtractLimits): Promise<Extracted> {
  const budget = new Budget(limits, fs.statSync(file).size);
  const links: PendingLink[] = [];
  const modeless: string[] = [];
  let files = 0;
  const zip = await yauzl
    .openPromise(file, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true })
    .catch((err: unknown) => {
      throw damaged(err);
    });
  try {
    for await (const e of zip.eachEntry()) {
      budget.entry();
      const name = yauzl.getFileNameLowLevel(e.generalPurposeBitFlag, e.fileNameRaw, e.extraFields, false);
      const rel = safeEntryPath(name);
      const unixMode = e.versionMadeBy >> 8 === UNIX_HOST ? e.externalFileAttributes >>> 16 : undefined;
      const type = unixMode !== undefined ? unixMode & 0o170000 : 0;
      if (name.endsWith('/') || type === 0o040000) {
        if (rel) fs.mkdirSync(inside(root, rel), { recursive: true });
        continue;
      }
      checkEntry(e, name, type);
      if (!rel) throw new ArchiveError('a file entry has an empty name');
      budget.add(e.uncompressedSize);
      if (type === 0o120000) {
        if (e.uncompressedSize > MAX_LINK) throw new ArchiveError(`link "${name}" is too long`);
        const target = await collect(await zip.openReadStreamPromise(e), name, e);
        links.push({ at: rel, target: target.toString('utf8') });
        continue;
      }
      const out = createFile(root, rel, unixMode ?? 0o644);
      await unpackEntry(await zip.openReadStreamPromise(e), name, e, fs.createWriteStream('', { fd: out }));
      if (unixMode === undefined) modeless.push(rel);
      files++;
    }
  } catch (err) {
    throw damaged(err);
  } finally {
    zip.close();
  }
  makeLinks(root, links);
  return { files, bytes: budget.bytes, modeless };
}

function checkEntry(e: yauzl.Entry, name: string, type: number): void {
  if (e.isEncrypted()) throw new ArchiveError(`entry "${name}" is encrypted`);
  if (type !== 0 && type !== 0o100000 && type !== 0o120000)
    throw new ArchiveError(`entry "${name}" is not a regular file (devices and FIFOs are not allowed)`);
  if (e.compressionMethod !== 0 && e.compressionMethod !== 8)
    throw new ArchiveError(
      `entry "${name}" uses compression method ${e.compressionMethod} (only stored and deflated)`,
    );
}

/** Counts and checks an entry's bytes as they pass: never past its declared size, CRC-32 at the end. */
function checker(name: string, e: yauzl.Entry) {
  let written = 0;
  let crc = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, done) {
      written += chunk.length;
      if (written > e.uncompressedSize)
        return done(new ArchiveError(`the archive is damaged: "${name}" has the wrong size`));
      crc = zlib.crc32(chunk, crc);
      done(null, chunk);
    },
  });
  const verify = () => {
    if (written !== e.uncompressedSize)
      throw new ArchiveError(`the archive is damaged: "${name}" has the wrong size`);
    if (crc !== e.crc32) throw new ArchiveError(`the archive is damaged: CRC mismatch in "${name}"`);
  };
  return { stream, verify };
}

/** One file entry, streamed to disk (never whole in memory), then checked. */
async function unpackEntry(data: Readable, name: string, e: yauzl.Entry, sink: fs.WriteStream) {
  const check = checker(name, e);
  try {
    await pipeline(data, check.stream, sink);
  } catch (err) {
    if (err instanceof ArchiveError) throw err;
    throw new ArchiveError(`the archive is damaged: "${name}" does not inflate (${(err as Error).message})`);
  }
  check.verify();
}

/** A small entry's bytes (a link's target), checked the same way. */
async function collect(data: Readable, name: string, e: yauzl.Entry): Promise<Buffer> {
  const check = checker(name, e);
  const parts: Buffer[] = [];
  try {
    await pipeline(data, check.stream, async (chunks: AsyncIterable<Buffer>) => {
      for await (const chunk of chunks) parts.push(chunk);
    });
  } catch (err) {
    if (err instanceof ArchiveError) throw err;
    throw new ArchiveError(`the archive is damaged: "${name}" does not inflate (${(err as Error).message})`);
  }
  check.verify();
  return Buffer.concat(parts);
}
