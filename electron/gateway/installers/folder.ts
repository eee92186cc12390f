// Installs stay in their folder (issue 29.4): every path the installer deletes or renames into is
// resolved (through any link on the way) and must lie strictly inside the agents' folder. A
// registry's version or id, or a record in the database, can never make it touch anything else.
import fs from 'node:fs';
import path from 'node:path';
import { ArchiveError } from './archive-rules';

/** Strict semver 2.0.0: numbers, then dot-separated identifiers; no path characters at all. */
export const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

/** `target` with its parent resolved through links; throws unless strictly inside `root`. */
export function checkedInside(root: string, target: string): string {
  const realRoot = fs.realpathSync.native(root);
  const abs = path.resolve(target);
  const lexical = path.relative(path.resolve(root), abs);
  let parent = path.dirname(abs);
  // The nearest folder that exists, resolved: a link on the way counts where it leads.
  while (!fs.existsSync(parent) && path.dirname(parent) !== parent) parent = path.dirname(parent);
  const real = path.join(fs.realpathSync.native(parent), path.relative(parent, abs));
  const resolved = path.relative(realRoot, real);
  for (const rel of [lexical, resolved])
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel))
      throw new ArchiveError(`refused: ${target} is not inside the agents' folder ${root}`);
  return real;
}

/** Deletes `target` (a link itself, never what it points at) when it lies inside `root`. */
export function removeInside(root: string, target: string): void {
  if (!fs.existsSync(root)) return;
  fs.rmSync(checkedInside(root, target), { recursive: true, force: true });
}

/** Renames `from` to `to`, both inside `root`. */
export function renameInside(root: string, from: string, to: string): void {
  fs.renameSync(checkedInside(root, from), checkedInside(root, to));
}
