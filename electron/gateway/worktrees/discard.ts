// Removing a worktree and its branch. Only a folder git itself lists as a worktree of the
// repository is removed (never whatever path a row names), and a folder deleted by hand only
// needs git to forget it. The person confirmed first, with the list of what is lost (impact).
import { existsSync, realpathSync } from 'node:fs';
import type { WorktreeInfo } from '../../../shared/domain';
import { GatewayError } from '../errors';
import { git, gitOk } from './git';
import { checkBranch } from './names';

const cannot = (why: string) => new GatewayError('unavailable', `Cannot discard the worktree: ${why}`);

async function listed(w: WorktreeInfo): Promise<boolean> {
  const out = await gitOk(w.repository, ['worktree', 'list', '--porcelain', '-z'], (e) => cannot(e));
  const real = existsSync(w.path) ? realpathSync(w.path) : w.path;
  return out.split('\0').some((l) => l === `worktree ${w.path}` || l === `worktree ${real}`);
}

/** Removes the worktree's folder (uncommitted work included: the person confirmed) and its branch. */
export async function removeWorktree(w: WorktreeInfo): Promise<void> {
  const branch = checkBranch(w.branch);
  if (!existsSync(w.repository)) throw cannot(`the repository ${w.repository} no longer exists`);
  if (existsSync(w.path)) {
    if (!(await listed(w)))
      throw cannot(`${w.path} is not a worktree of ${w.repository}; nothing was removed`);
    await gitOk(w.repository, ['worktree', 'remove', '--force', '--force', '--', w.path], (e) => cannot(e));
  } else {
    await gitOk(w.repository, ['worktree', 'prune'], (e) => cannot(e));
  }
  const exists = await git(w.repository, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]);
  if (exists.code === 0) await gitOk(w.repository, ['branch', '-D', '--', branch], (e) => cannot(e));
}
