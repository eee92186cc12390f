// The unpacking itself, run by archive-worker.ts on a thread of its own (archive.ts starts it):
// the destination is made and resolved once, then the format's reader takes over.
import fs from 'node:fs';
import type { Extracted, ExtractLimits } from './archive-rules';
import { extractTarGz } from './archive-tar';
import { extractZip } from './archive-zip';

export type ArchiveKind = 'tar.gz' | 'zip';

/** What archive.ts sends the worker, and what it answers. */
export interface UnpackRequest {
  file: string;
  kind: ArchiveKind;
  dest: string;
  limits: ExtractLimits;
}
export type UnpackAnswer =
  { ok: true; extracted: Extracted } | { ok: false; archive: boolean; message: string };

export async function unpackArchive(
  file: string,
  kind: ArchiveKind,
  dest: string,
  limits: ExtractLimits,
): Promise<Extracted> {
  fs.mkdirSync(dest, { recursive: true });
  const root = fs.realpathSync(dest);
  return kind === 'zip' ? extractZip(file, root, limits) : extractTarGz(file, root, limits);
}
