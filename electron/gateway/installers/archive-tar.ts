// tar.gz for archive.ts: gunzip into a temporary .tar (bounded), then walk its 512-byte headers
// (ustar with pax `x`/`g` and GNU long-name `L`/`K` headers).
import fs from 'node:fs';
import path from 'node:path';
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
  const tar = path.join(path.dirname(root), `.${path.basename(root)}.tar`);
  try {
    // The unpacked tar counts against the size budget too: a gzip bomb stops here.
    await pipeline(
      fs.createReadStream(file),
      zlib.createGunzip(),
      counter(new Budget(limits, fs.statSync(file).size)),
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
