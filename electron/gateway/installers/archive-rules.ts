// The rules every archive format is unpacked under (see archive.ts): entry paths that stay inside
// the folder, a budget of entries and bytes, links made last and only to places inside, files
// created without following anything already there.
import fs from 'node:fs';
import path from 'node:path';

export interface ExtractLimits {
  maxEntries: number;
  maxBytes: number;
  /**
   * Unpacked bytes per archive byte, at most (a 1 MB zip inflating to 2 GiB is a bomb, not an
   * agent). Archives under RATIO_FLOOR unpacked are not held to it.
   */
  maxRatio?: number;
}

export const DEFAULT_LIMITS: ExtractLimits = {
  maxEntries: 20_000,
  maxBytes: 2 * 1024 * 1024 * 1024,
  maxRatio: 100,
};
const RATIO_FLOOR = 16 * 1024 * 1024;

export class ArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveError';
  }
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

export function inside(root: string, rel: string): string {
  const target = path.resolve(root, rel);
  if (!isInside(root, target)) throw new ArchiveError(`entry "${rel}" points outside the folder`);
  return target;
}

export class Budget {
  entries = 0;
  bytes = 0;
  /** `archiveBytes`: the archive's own size, for the ratio limit. */
  constructor(
    private readonly limits: ExtractLimits,
    private readonly archiveBytes = Infinity,
  ) {}
  entry(): void {
    if (++this.entries > this.limits.maxEntries)
      throw new ArchiveError(`the archive has more than ${this.limits.maxEntries} entries`);
  }
  add(n: number): void {
    this.bytes += n;
    if (this.bytes > this.limits.maxBytes)
      throw new ArchiveError(`the archive unpacks to more than ${this.limits.maxBytes} bytes`);
    const ratio = this.limits.maxRatio;
    if (ratio !== undefined && this.bytes > RATIO_FLOOR && this.bytes > this.archiveBytes * ratio)
      throw new ArchiveError(
        `the archive unpacks to more than ${ratio} times its size (${this.archiveBytes} bytes): refused as a bomb`,
      );
  }
}

export interface PendingLink {
  at: string;
  target: string;
}

/** Creates the links once every file exists; each must resolve inside the folder. */
export function makeLinks(root: string, links: PendingLink[]): void {
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
  // Each target was checked where it seems to lead; a chain (L2 → ., L1 → L2/..) can still lead
  // out, through another link. Resolved through every link now: inside, or refused.
  // realpath.native: the system's own resolution (Node's JS realpath folds `L2/..` lexically).
  const real = fs.realpathSync.native(root);
  for (const l of links) {
    let resolved: string;
    try {
      resolved = fs.realpathSync.native(path.join(root, l.at));
    } catch {
      throw new ArchiveError(`link "${l.at}" leads nowhere (dangling or a loop)`);
    }
    if (!isInside(real, resolved)) throw new ArchiveError(`link "${l.at}" points outside the folder`);
  }
}

/** Writes a file, refusing to follow anything already there (a link could point anywhere). */
export function createFile(root: string, rel: string, mode: number): number {
  const at = inside(root, rel);
  fs.mkdirSync(path.dirname(at), { recursive: true });
  fs.rmSync(at, { force: true });
  return fs.openSync(at, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, mode & 0o777);
}
