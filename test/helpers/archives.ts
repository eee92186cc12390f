// Small archive writers for tests: ustar .tar.gz and .zip (stored or deflated), able to write the
// entries a hostile archive would carry (`..` paths, absolute paths, links, devices, bad CRCs).
import zlib from 'node:zlib';

export interface ArchiveEntry {
  name: string;
  /** `pax`: a pax extended header (`x`) that applies to the next entry; its body is the records. */
  type?: 'file' | 'dir' | 'symlink' | 'hardlink' | 'fifo' | 'pax';
  body?: string | Buffer;
  mode?: number;
  /** Link target. */
  link?: string;
}

function field(buf: Buffer, at: number, len: number, value: string): void {
  buf.write(value.slice(0, len), at, len, 'utf8');
}

function octal(buf: Buffer, at: number, len: number, n: number): void {
  field(buf, at, len, n.toString(8).padStart(len - 1, '0') + '\0');
}

const TYPE = { file: '0', dir: '5', symlink: '2', hardlink: '1', fifo: '6', pax: 'x' } as const;

function tarHeader(e: ArchiveEntry, size: number): Buffer {
  const h = Buffer.alloc(512);
  field(h, 0, 100, e.name);
  octal(h, 100, 8, e.mode ?? (e.type === 'dir' ? 0o755 : 0o644));
  octal(h, 108, 8, 0);
  octal(h, 116, 8, 0);
  octal(h, 124, 12, size);
  octal(h, 136, 12, 1_700_000_000);
  field(h, 148, 8, '        ');
  field(h, 156, 1, TYPE[e.type ?? 'file']);
  field(h, 157, 100, e.link ?? '');
  field(h, 257, 6, 'ustar\0');
  field(h, 263, 2, '00');
  let sum = 0;
  for (const b of h) sum += b;
  field(h, 148, 8, sum.toString(8).padStart(6, '0') + '\0 ');
  return h;
}

export function tar(entries: ArchiveEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const body = Buffer.from(e.body ?? '');
    const hasBody = e.type === undefined || e.type === 'file' || e.type === 'pax';
    parts.push(tarHeader(e, hasBody ? body.length : 0));
    if (hasBody) {
      parts.push(body, Buffer.alloc((512 - (body.length % 512)) % 512));
    }
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

export const tarGz = (entries: ArchiveEntry[]): Buffer => zlib.gzipSync(tar(entries));

export function zip(
  entries: ArchiveEntry[],
  opts: { corruptCrcOf?: string; deflate?: boolean } = {},
): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const isDir = e.type === 'dir';
    const name = Buffer.from(isDir && !e.name.endsWith('/') ? `${e.name}/` : e.name);
    const data = Buffer.from(e.type === 'symlink' ? (e.link ?? '') : (e.body ?? ''));
    const deflate = (opts.deflate ?? true) && data.length > 0;
    const stored = deflate ? zlib.deflateRawSync(data) : data;
    let crc = zlib.crc32(data);
    if (opts.corruptCrcOf === e.name) crc = (crc ^ 0xdeadbeef) >>> 0;
    const kind = isDir ? 0o040000 : e.type === 'symlink' ? 0o120000 : e.type === 'fifo' ? 0o010000 : 0o100000;
    const mode = kind | (e.mode ?? (isDir ? 0o755 : 0o644));
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(deflate ? 8 : 0, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(stored.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, stored);
    const cen = Buffer.alloc(46);
    cen.writeUInt32LE(0x02014b50, 0);
    cen.writeUInt16LE((3 << 8) | 20, 4); // made on Unix: external attributes carry the mode
    cen.writeUInt16LE(20, 6);
    cen.writeUInt16LE(0x0800, 8);
    cen.writeUInt16LE(deflate ? 8 : 0, 10);
    cen.writeUInt32LE(crc, 16);
    cen.writeUInt32LE(stored.length, 20);
    cen.writeUInt32LE(data.length, 24);
    cen.writeUInt16LE(name.length, 28);
    cen.writeUInt32LE((mode << 16) >>> 0, 38);
    cen.writeUInt32LE(offset, 42);
    central.push(cen, name);
    offset += 30 + name.length + stored.length;
  }
  const dir = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

/**
 * A gzip bomb: a .tar.gz whose one entry is `zeros` bytes of zeros (up to 8 GiB), made without
 * ever holding them: one MiB of zeros deflated with a sync flush (a non-final block that needs no
 * history but zeros) is repeated, then a final empty block closes the stream. About 1 KB per MiB,
 * so 2 GiB fit in ~2 MB. The gzip trailer's CRC is not that of the content (it would take reading
 * 2 GiB to compute); an unpacker that honours its limits never reaches it.
 */
export function tarGzBomb(name: string, zeros: number): Buffer {
  const MiB = 1024 * 1024;
  const flush = { finishFlush: zlib.constants.Z_SYNC_FLUSH, level: 9 };
  const header = tarHeader({ name }, zeros);
  const head = zlib.deflateRawSync(header, flush);
  const block = zlib.deflateRawSync(Buffer.alloc(MiB), flush);
  const gzipHeader = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
  const finalBlock = Buffer.from([0x03, 0x00]);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(0, 0);
  trailer.writeUInt32LE((512 + zeros) % 2 ** 32, 4);
  return Buffer.concat([
    gzipHeader,
    head,
    ...Array<Buffer>(Math.ceil(zeros / MiB)).fill(block),
    finalBlock,
    trailer,
  ]);
}

/**
 * A zip whose one deflated entry inflates to `zeros` bytes of zeros but says it holds `declared`
 * (a liar: an unpacker that trusts the directory writes far more than it planned).
 */
export function zipBomb(name: string, zeros: number, declared: number): Buffer {
  const MiB = 1024 * 1024;
  const block = zlib.deflateRawSync(Buffer.alloc(MiB), {
    finishFlush: zlib.constants.Z_SYNC_FLUSH,
    level: 9,
  });
  const data = Buffer.concat([
    ...Array<Buffer>(Math.ceil(zeros / MiB)).fill(block),
    Buffer.from([0x03, 0x00]),
  ]);
  const z = zip([{ name, body: Buffer.alloc(declared) }], { deflate: false });
  // Swap the stored body for the deflated bomb: sizes stay `declared`, method becomes deflate.
  const nameLen = Buffer.byteLength(name);
  const local = Buffer.from(z.subarray(0, 30));
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(data.length, 18);
  const central = Buffer.from(z.subarray(30 + nameLen + declared));
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(30 + nameLen + data.length, central.length - 22 + 16);
  return Buffer.concat([local, Buffer.from(name), data, central]);
}
