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
import { ArchiveError, DEFAULT_LIMITS, type Extracted, type ExtractLimits } from './archive-rules';
import { extractTarGz } from './archive-tar';
import { extractZip } from './archive-zip';

export {
  ArchiveError,
  DEFAULT_LIMITS,
  safeEntryPath,
  type Extracted,
  type ExtractLimits,
} from './archive-rules';

export type ArchiveKind = 'tar.gz' | 'zip';

/** The format from the archive URL's path. */
export function archiveKind(url: string): ArchiveKind {
  const p = new URL(url).pathname.toLowerCase();
  if (p.endsWith('.tar.gz') || p.endsWith('.tgz')) return 'tar.gz';
  if (p.endsWith('.zip')) return 'zip';
  throw new ArchiveError(`unsupported archive format: ${path.posix.basename(p)} (expected .tar.gz or .zip)`);
}

/** Unpacks `file` into `dest` (created), under the rules above; throws ArchiveError. */
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
