// A binary distribution from the registry: downloaded (HTTPS, size-limited, hashed), unpacked into a
// staging folder beside its target (archive.ts), the entry's cmd checked, then moved into place.
// Nothing is left behind when a step fails.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { RegistryInstallPlan } from '../../../shared/ipc/types';
import { archiveKind, ArchiveError, DEFAULT_LIMITS, extract, type ExtractLimits } from './archive';
import { fetchLimited } from './download';
import { checkedInside, removeInside, renameInside } from './folder';

const DOWNLOAD_TIMEOUT_MS = 10 * 60 * 1000;

/** Downloads and unpacks a binary distribution into its folder; returns what was installed. */
export async function fetchBinary(
  d: NonNullable<RegistryInstallPlan['download']>,
  cmd: string,
  /** `root`: the agents' folder; nothing outside it is written, deleted or renamed. */
  opts: { root: string; allowLoopbackHttp?: boolean; extractLimits?: ExtractLimits },
): Promise<{ sha256: string; size: number; source: string }> {
  const kind = archiveKind(d.url);
  fs.mkdirSync(opts.root, { recursive: true, mode: 0o700 });
  checkedInside(opts.root, d.folder);
  const parent = path.dirname(d.folder);
  fs.mkdirSync(parent, { recursive: true, mode: 0o700 });
  checkedInside(opts.root, parent);
  const tag = randomUUID().slice(0, 8);
  const archive = path.join(parent, `.download-${tag}`);
  const staging = path.join(parent, `.staging-${tag}`);
  try {
    const got = await fetchLimited(d.url, {
      maxBytes: d.maxBytes,
      timeoutMs: DOWNLOAD_TIMEOUT_MS,
      toFile: archive,
      ...(opts.allowLoopbackHttp ? { allowLoopbackHttp: true } : {}),
    });
    const unpacked = await extract(archive, kind, staging, opts.extractLimits ?? DEFAULT_LIMITS);
    checkCmd(staging, cmd, unpacked.modeless);
    removeInside(opts.root, d.folder);
    renameInside(opts.root, staging, d.folder);
    return {
      sha256: got.sha256,
      size: got.size,
      source: got.finalUrl === d.url ? d.url : `${d.url} → ${got.finalUrl}`,
    };
  } finally {
    removeInside(opts.root, archive);
    removeInside(opts.root, staging);
  }
}

/** The entry's cmd must be a regular executable file inside the folder it was unpacked into. */
function checkCmd(root: string, cmd: string, modeless: string[]): void {
  const target = path.resolve(root, cmd);
  const rel = path.relative(root, target);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel))
    throw new ArchiveError(`the registry's cmd "${cmd}" points outside the unpacked folder`);
  const st = fs.lstatSync(target, { throwIfNoEntry: false });
  if (!st) throw new ArchiveError(`the archive does not contain the registry's cmd "${cmd}"`);
  if (!st.isFile())
    throw new ArchiveError(`the registry's cmd "${cmd}" is not a regular file in the archive`);
  // An archive made on a host without Unix modes (a zip from Windows) cannot say; then it is made so.
  if (modeless.includes(rel.split(path.sep).join('/'))) fs.chmodSync(target, 0o755);
  if (process.platform === 'win32') return;
  try {
    fs.accessSync(target, fs.constants.X_OK);
  } catch {
    throw new ArchiveError(`the registry's cmd "${cmd}" is not executable in the archive`);
  }
}
