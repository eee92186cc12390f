// Is a folder in a git repository Sightline can make worktrees of? Each answer that is "no" says
// why in the person's words (not a repository, bare, no commits, detached HEAD without a base).
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { WorktreeProbe } from '../../../shared/ipc/worktrees';
import { GatewayError, invalidArgument } from '../errors';
import { checkBase } from './names';
import { git } from './git';

export interface Repo {
  /** The main repository's top-level folder. */
  repository: string;
  /** The folder git commands run in. */
  top: string;
  branch?: string;
  head?: string;
}

/** What the folder is, or why worktrees cannot be made there (`inPlaceReason`). */
export async function probe(cwd: string): Promise<WorktreeProbe & { repo?: Repo }> {
  if (!existsSync(cwd)) return { inPlaceReason: `the folder does not exist: ${cwd}` };
  const where = await git(cwd, [
    'rev-parse',
    '--is-bare-repository',
    '--path-format=absolute',
    '--git-common-dir',
  ]);
  if (where.code !== 0) return { inPlaceReason: 'the folder is not in a git repository' };
  const [bare, common = ''] = where.stdout.split('\n');
  const top = bare === 'true' ? '' : (await git(cwd, ['rev-parse', '--show-toplevel'])).stdout.trim();
  if (top === '')
    return { inPlaceReason: 'the folder is a bare git repository (it has no files to work on)' };
  // A linked worktree's common folder is the main repository's .git: its parent is the repository.
  const repository = path.basename(common) === '.git' ? path.dirname(common) : top;
  const head = await git(top, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  if (head.code !== 0)
    return {
      repository,
      inPlaceReason: 'the repository has no commits yet',
    };
  const branch = await git(top, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
  const heads = await git(top, ['for-each-ref', '--count=200', '--format=%(refname:short)', 'refs/heads']);
  return {
    repository,
    ...(branch.code === 0 ? { branch: branch.stdout.trim() } : {}),
    branches: heads.stdout.split('\n').filter(Boolean),
    repo: {
      repository,
      top,
      head: head.stdout.trim(),
      ...(branch.code === 0 ? { branch: branch.stdout.trim() } : {}),
    },
  };
}

/** The repository for a new worktree, and the base it starts from; refuses with the reason. */
export async function resolveStart(
  cwd: string,
  base: unknown,
): Promise<{ repo: Repo; base: string; baseCommit: string }> {
  const found = await probe(cwd);
  if (!found.repo) throw invalidArgument(`Cannot start in a worktree: ${found.inPlaceReason}`);
  const repo = found.repo;
  if (base === undefined) {
    if (!repo.branch)
      throw invalidArgument(
        `Cannot start in a worktree: HEAD is detached in ${repo.repository}; choose a base branch to start from`,
      );
    return { repo, base: repo.branch, baseCommit: repo.head! };
  }
  const name = checkBase(base);
  const r = await git(repo.top, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${name}^{commit}`]);
  if (r.code !== 0)
    throw new GatewayError(
      'not_found',
      `No branch or commit named ${JSON.stringify(name)} in ${repo.repository}`,
    );
  return { repo, base: name, baseCommit: r.stdout.trim() };
}
