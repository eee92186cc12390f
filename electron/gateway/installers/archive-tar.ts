// tar.gz for archive-unpack.ts, read with npm's own `tar` Parser (ustar, pax, GNU long names,
// header checksums, truncation), streaming: gunzip → byte budget → parser → each file straight to
// disk. The parser only reads; what is written, where, and what is refused are our rules
// (archive-rules.ts), the same as for a zip.
import fs from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { Parser, type ReadEntry } from 'tar';
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

const damaged = (err: unknown) =>
  err instanceof ArchiveError ? err : new ArchiveError(`the archive is damaged: ${(err as Error).message}`);

/** The gunzipped bytes count against the budget as they come: a gzip bomb stops here. */
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

export async function extractTarGz(file: string, root: string, limits: ExtractLimits): Promise<Extracted> {
  const stream = new Budget(limits, fs.statSync(file).size);
  const budget = new Budget(limits);
  const links: PendingLink[] = [];
  const writes: Promise<void>[] = [];
  let failure: Error | undefined;
  const parser = new Parser({ strict: true });
  const failed = new Promise<never>((_, reject) => {
    const fail = (err: unknown) => {
      failure ??= damaged(err);
      reject(failure);
    };
    parser.on('error', fail);
    parser.on('entry', (entry: ReadEntry) => {
      try {
        const write = takeEntry(entry, root, budget, links);
        if (write) writes.push(write.catch(fail));
      } catch (err) {
        entry.resume();
        fail(err);
      }
    });
  });
  failed.catch(() => undefined);
  // Plain listeners, not events.once: that one rejects on 'error' too, unawaited.
  const ended = new Promise((resolve) => parser.once('end', resolve));
  const drained = () => new Promise((resolve) => parser.once('drain', resolve));
  try {
    await pipeline(fs.createReadStream(file), zlib.createGunzip(), counter(stream), async (chunks) => {
      for await (const chunk of chunks as AsyncIterable<Buffer>) {
        if (failure) throw failure;
        if (!parser.write(chunk)) await Promise.race([drained(), failed]);
      }
      parser.end();
      await Promise.race([ended, failed]);
    });
    await Promise.race([Promise.all(writes), failed]);
    // The parser may end in the same tick it failed: a race settled by `ended` says nothing.
    if (failure) throw failure;
  } catch (err) {
    throw failure ?? damaged(err);
  }
  makeLinks(root, links);
  return { files: writes.length, bytes: budget.bytes, modeless: [] };
}

/** One entry: a folder made, a link noted for later, a file streamed to disk; anything else refused. */
function takeEntry(entry: ReadEntry, root: string, budget: Budget, links: PendingLink[]) {
  budget.entry();
  const name = entry.path;
  switch (entry.type) {
    case 'Directory': {
      const rel = safeEntryPath(name);
      if (rel) fs.mkdirSync(inside(root, rel), { recursive: true });
      entry.resume();
      return undefined;
    }
    case 'SymbolicLink':
      links.push({ at: safeEntryPath(name), target: entry.linkpath ?? '' });
      entry.resume();
      return undefined;
    case 'File':
    case 'OldFile':
    case 'ContiguousFile': {
      const rel = safeEntryPath(name);
      if (!rel) throw new ArchiveError('a file entry has an empty name');
      budget.add(entry.size);
      const out = createFile(root, rel, (entry.mode ?? 0) & 0o777 || 0o644);
      return pipeline(entry, fs.createWriteStream('', { fd: out }));
    }
    case 'Link':
      throw new ArchiveError(`entry "${name}" is a hard link (not allowed)`);
    default:
      throw new ArchiveError(
        `entry "${name}" has unsupported type "${entry.header.typeKey}" (devices and FIFOs are not allowed)`,
      );
  }
}
