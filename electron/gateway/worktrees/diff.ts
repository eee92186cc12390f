// What a worktree changed against its base: committed and uncommitted work, new files included,
// as git would commit it (.gitignore applies). git compares the base with the worktree's files
// through a private index of Sightline's own (GIT_INDEX_FILE), never the agent's index: in it,
// new files are only marked "intent to add", so counting writes no objects into the repository
// (writing a blob per changed file made a first count of 1,000 files take a second here). The
// counts a fleet row shows cost one `git add --intent-to-add` and then, side by side, one
// `git diff` for the files with their +/− against the base (raw and numstat in one output) and
// one for what is uncommitted against HEAD. Patches are made only when asked: one file's when a
// person opens it, the whole one for `worktrees.diff`. A merge stages the files for real
// (`workingTree`). git runs in child processes, never blocking the gateway's thread.
import { copyFile, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { WorktreeFile } from '../../../shared/ipc/worktrees';
import type { WorktreeInfo } from '../../../shared/domain';
import { GatewayError } from '../errors';
import { gitOk } from './git';
import { parseRawNumstat } from './raw';

const NO_PROGRAMS = ['--no-color', '--no-ext-diff', '--no-textconv', '-M'];

/** What a fleet row's counts come from: the files against the base, and those not committed. */
export interface Counted {
  files: WorktreeFile[];
  uncommitted: string[];
}

export const folderGone = (w: WorktreeInfo) =>
  new GatewayError(
    'unavailable',
    `The worktree folder ${w.path} no longer exists (deleted by hand?). Discard it to remove its branch ${w.branch}, or keep the branch.`,
  );

const failed = (w: WorktreeInfo, what: string) => (stderr: string) =>
  existsSync(w.path)
    ? new GatewayError('unavailable', `git could not ${what} in ${w.path}: ${stderr}`)
    : folderGone(w);

/**
 * Brings the private index up to the worktree's files: new ones marked (`intent`) or staged,
 * deleted ones removed, changed ones staged unless only marking.
 */
async function stage(w: WorktreeInfo, indexFile: string, intent: boolean): Promise<Record<string, string>> {
  if (!existsSync(w.path)) throw folderGone(w);
  const env = { GIT_INDEX_FILE: indexFile };
  if (!existsSync(indexFile)) {
    await mkdir(path.dirname(indexFile), { recursive: true });
    // Seeded from the worktree's own index, so its stat data spares rehashing unchanged files.
    const own = (
      await gitOk(
        w.path,
        ['rev-parse', '--path-format=absolute', '--git-path', 'index'],
        failed(w, 'find its index'),
      )
    ).trim();
    if (existsSync(own)) await copyFile(own, indexFile);
    else await gitOk(w.path, ['read-tree', 'HEAD'], failed(w, 'read HEAD'), { env });
  }
  const add = ['add', '--all', ...(intent ? ['--intent-to-add'] : []), '--', ':/'];
  await gitOk(w.path, add, failed(w, 'read the files'), { env });
  return env;
}

/** The worktree's files as a tree object (its working state), through Sightline's own index. */
export async function workingTree(w: WorktreeInfo, indexFile: string): Promise<string> {
  const env = await stage(w, indexFile, false);
  return (await gitOk(w.path, ['write-tree'], failed(w, 'write the tree'), { env })).trim();
}

/** The worktree's HEAD commit. */
async function headOf(w: WorktreeInfo): Promise<string> {
  const head = await gitOk(w.path, ['rev-parse', '--verify', 'HEAD^{commit}'], failed(w, 'read HEAD'));
  return head.trim();
}

/**
 * The files changed against the base (with +/−) and those not committed yet: a fleet row's
 * counts. While the branch has no commits of its own (HEAD is the base) what is uncommitted is
 * exactly what changed, and git reads the changed files once, not twice.
 */
export async function countChanges(w: WorktreeInfo, indexFile: string): Promise<Counted> {
  const [env, head] = await Promise.all([stage(w, indexFile, true), headOf(w)]);
  const diff = (args: string[], what: string) =>
    gitOk(w.path, ['diff', ...NO_PROGRAMS, '-z', ...args], failed(w, what), { env });
  const [both, sinceHead] = await Promise.all([
    diff(['--raw', '--numstat', w.baseCommit], 'count the changes'),
    head === w.baseCommit ? undefined : diff(['--name-only', head], 'read its status'),
  ]);
  const files = parseRawNumstat(both);
  const uncommitted =
    sinceHead === undefined ? files.map((f) => f.path) : sinceHead.split('\0').filter(Boolean);
  return { files, uncommitted };
}

/** Commits on the worktree's branch since the base commit. */
export async function commitsOf(w: WorktreeInfo): Promise<number> {
  if (!existsSync(w.path)) throw folderGone(w);
  const n = await gitOk(
    w.path,
    ['rev-list', '--count', `${w.baseCommit}..HEAD`],
    failed(w, 'count its commits'),
  );
  return Number(n.trim()) || 0;
}

/**
 * The unified diff of the worktree's files (new ones as the last count marked them) against the
 * base: of one changed file (its old path too, so a rename stays one), or of all of them. Paths
 * are literal: a name with `*` or `:(` in it is a file name, never a pattern.
 */
export async function patchOf(w: WorktreeInfo, indexFile: string, file?: WorktreeFile): Promise<string> {
  if (!existsSync(w.path)) throw folderGone(w);
  const paths = file ? ['--', file.path, ...(file.oldPath ? [file.oldPath] : [])] : [];
  return gitOk(w.path, ['diff', ...NO_PROGRAMS, w.baseCommit, ...paths], failed(w, 'make the diff'), {
    env: { GIT_INDEX_FILE: indexFile, GIT_LITERAL_PATHSPECS: '1' },
  });
}
