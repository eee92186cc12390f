// What a worktree changed against its base: committed and uncommitted work, new files included,
// as git would commit it (.gitignore applies). The working state is written as a tree through a
// private index of Sightline's own (GIT_INDEX_FILE), never the agent's index: the index keeps each
// file's stat data, so after the first time `git add -A` rehashes only files that changed, and a
// tree that did not change reuses the last answer. git runs in child processes (never blocking).
import { copyFile, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { WorktreeDiff, WorktreeFile, WorktreeFileStatus } from '../../../shared/ipc/worktrees';
import type { WorktreeInfo } from '../../../shared/domain';
import { GatewayError } from '../errors';
import { gitOk } from './git';

const NO_PROGRAMS = ['--no-color', '--no-ext-diff', '--no-textconv', '-M'];

export const folderGone = (w: WorktreeInfo) =>
  new GatewayError(
    'unavailable',
    `The worktree folder ${w.path} no longer exists (deleted by hand?). Discard it to remove its branch ${w.branch}, or keep the branch.`,
  );

const failed = (w: WorktreeInfo, what: string) => (stderr: string) =>
  existsSync(w.path)
    ? new GatewayError('unavailable', `git could not ${what} in ${w.path}: ${stderr}`)
    : folderGone(w);

/** The worktree's files as a tree object (its working state), through Sightline's own index. */
export async function workingTree(w: WorktreeInfo, indexFile: string): Promise<string> {
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
  await gitOk(w.path, ['add', '--all', '--', ':/'], failed(w, 'read the files'), { env });
  return (await gitOk(w.path, ['write-tree'], failed(w, 'write the tree'), { env })).trim();
}

/** The worktree's HEAD commit. */
export async function headOf(w: WorktreeInfo): Promise<string> {
  return (await gitOk(w.path, ['rev-parse', '--verify', 'HEAD^{commit}'], failed(w, 'read HEAD'))).trim();
}

/**
 * The files, the patch and the uncommitted state of a working tree against the base commit: a
 * function of (base commit, HEAD, tree), which is what the service caches on.
 */
export async function diffAgainstBase(w: WorktreeInfo, head: string, tree: string): Promise<WorktreeDiff> {
  const range = [w.baseCommit, tree];
  const [names, numbers, patch, uncommitted, commits] = await Promise.all([
    gitOk(w.path, ['diff', ...NO_PROGRAMS, '--name-status', '-z', ...range], failed(w, 'list the changes')),
    gitOk(w.path, ['diff', ...NO_PROGRAMS, '--numstat', '-z', ...range], failed(w, 'count the changes')),
    gitOk(w.path, ['diff', ...NO_PROGRAMS, ...range], failed(w, 'make the diff')),
    gitOk(w.path, ['diff', ...NO_PROGRAMS, '--name-only', '-z', head, tree], failed(w, 'read its status')),
    gitOk(w.path, ['rev-list', '--count', `${w.baseCommit}..${head}`], failed(w, 'count its commits')),
  ]);
  return {
    files: parseFiles(names, numbers),
    patch,
    uncommitted: uncommitted.split('\0').filter(Boolean),
    commits: Number(commits.trim()) || 0,
    baseCommit: w.baseCommit,
  };
}

const STATUS: Record<string, WorktreeFileStatus> = {
  A: 'added',
  M: 'modified',
  D: 'deleted',
  R: 'renamed',
  T: 'modified',
  C: 'added',
};

/** `--name-status -z` and `--numstat -z` of the same diff, joined (both list files in one order). */
export function parseFiles(names: string, numbers: string): WorktreeFile[] {
  const files: WorktreeFile[] = [];
  const t = names.split('\0');
  for (let i = 0; i < t.length - 1;) {
    const code = t[i++]!.charAt(0);
    const status = STATUS[code] ?? 'modified';
    if (code === 'R' || code === 'C') {
      const oldPath = t[i++]!;
      files.push({ path: t[i++]!, status, ...(code === 'R' ? { oldPath } : {}), additions: 0, deletions: 0 });
    } else files.push({ path: t[i++]!, status, additions: 0, deletions: 0 });
  }
  const n = numbers.split('\0');
  let f = 0;
  for (let i = 0; i < n.length - 1 && f < files.length; f++) {
    const [a = '0', d = '0', p = ''] = n[i++]!.split('\t');
    if (p === '') i += 2; // a rename: the old and new paths follow as their own fields
    const file = files[f]!;
    if (a === '-') file.binary = true;
    file.additions = Number(a) || 0;
    file.deletions = Number(d) || 0;
  }
  return files;
}
