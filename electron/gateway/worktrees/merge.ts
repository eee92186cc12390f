// Finishing a worktree into its base branch. The worktree's working state (committed and not)
// becomes a commit object; git's merge-tree merges it with the base branch's tip in memory, so a
// conflict is found before anything changes. Only then does the base branch move: as a
// fast-forward where it is checked out (git refuses, changing nothing, if the person's own
// uncommitted edits there would be overwritten), else by a compare-and-swap of the ref.
import type { WorktreeInfo } from '../../../shared/domain';
import type { MergeStrategy } from '../../../shared/ipc/worktrees';
import { GatewayError } from '../errors';
import { git, gitOk } from './git';

const refused = (why: string) => new GatewayError('forbidden', `Cannot merge: ${why}. Nothing was changed.`);

/** Who commits: the repository's configured person, else Sightline. */
async function identity(cwd: string): Promise<Record<string, string>> {
  const [name, email] = await Promise.all([
    git(cwd, ['config', 'user.name']),
    git(cwd, ['config', 'user.email']),
  ]);
  if (name.code === 0 && email.code === 0) return {};
  const who = { name: 'Sightline', email: 'sightline@localhost' };
  return {
    GIT_AUTHOR_NAME: who.name,
    GIT_AUTHOR_EMAIL: who.email,
    GIT_COMMITTER_NAME: who.name,
    GIT_COMMITTER_EMAIL: who.email,
  };
}

/** The folder where a branch is checked out (the main folder or a worktree), if any. */
async function checkedOutAt(repository: string, branch: string): Promise<string | undefined> {
  const out = await gitOk(repository, ['worktree', 'list', '--porcelain', '-z'], (e) =>
    refused(`git cannot list worktrees (${e})`),
  );
  for (const block of out.split('\0\0')) {
    const lines = block.split('\0');
    const at = lines.find((l) => l.startsWith('worktree '))?.slice('worktree '.length);
    if (at && lines.includes(`branch refs/heads/${branch}`)) return at;
  }
  return undefined;
}

/** The worktree's working state as a commit on top of its HEAD (HEAD itself when nothing is uncommitted). */
async function sourceCommit(w: WorktreeInfo, tree: string, env: Record<string, string>): Promise<string> {
  const head = (await gitOk(w.path, ['rev-parse', 'HEAD'], (e) => refused(e))).trim();
  const headTree = (await gitOk(w.path, ['rev-parse', 'HEAD^{tree}'], (e) => refused(e))).trim();
  if (headTree === tree) return head;
  const msg = `Uncommitted changes of ${w.branch}`;
  return (
    await gitOk(w.path, ['commit-tree', tree, '-p', head, '-m', msg], (e) => refused(e), { env })
  ).trim();
}

export async function merge(
  w: WorktreeInfo,
  tree: string,
  opts: { strategy: MergeStrategy; message: string },
): Promise<{ commit: string }> {
  const repo = w.repository;
  const tip = await git(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${w.base}`]);
  if (tip.code !== 0)
    throw refused(`the base ${w.base} is not a branch of ${repo} (a commit cannot be merged into)`);
  const baseTip = tip.stdout.trim();
  const env = await identity(repo);
  const source = await sourceCommit(w, tree, env);
  const baseTree = (await gitOk(repo, ['rev-parse', `${w.baseCommit}^{tree}`], (e) => refused(e))).trim();
  if (baseTree === tree) throw refused(`the worktree has no changes against ${w.base}`);
  const merged = await git(repo, [
    'merge-tree',
    '--write-tree',
    '--name-only',
    '--no-messages',
    '-z',
    baseTip,
    source,
  ]);
  if (merged.code === 1) {
    const conflicts = merged.stdout.split('\0').slice(1).filter(Boolean);
    throw refused(
      `${w.base} moved and now conflicts with this worktree in ${conflicts.join(', ')}. Rebase the worktree onto ${w.base} and resolve, then merge again`,
    );
  }
  if (merged.code !== 0) throw refused(`git could not merge (${merged.stderr.trim().slice(0, 300)})`);
  const resultTree = merged.stdout.split('\0')[0]!.trim();
  const parents = opts.strategy === 'merge' ? ['-p', baseTip, '-p', source] : ['-p', baseTip];
  const commit = (
    await gitOk(repo, ['commit-tree', resultTree, ...parents, '-m', opts.message], (e) => refused(e), { env })
  ).trim();
  await moveBase(repo, w.base, baseTip, commit);
  return { commit };
}

async function moveBase(repo: string, base: string, from: string, to: string): Promise<void> {
  const at = await checkedOutAt(repo, base);
  if (at) {
    const ff = await git(at, ['merge', '--ff-only', '--no-edit', '--quiet', to]);
    if (ff.code !== 0)
      throw refused(
        `${base} is checked out in ${at} and git would not update it (${ff.stderr.trim().split('\n').slice(0, 4).join(' ')})`,
      );
    return;
  }
  const r = await git(repo, [
    'update-ref',
    '-m',
    'sightline: merge worktree',
    `refs/heads/${base}`,
    to,
    from,
  ]);
  if (r.code !== 0) throw refused(`${base} moved while merging; try again`);
}

/**
 * Rebases the worktree's branch onto the base branch's tip (uncommitted work set aside and put
 * back by git's autostash). A conflict aborts the rebase, leaving the worktree as it was.
 */
export async function rebase(w: WorktreeInfo): Promise<{ baseCommit: string }> {
  const no = (why: string) => new GatewayError('forbidden', `Cannot rebase: ${why}. Nothing was changed.`);
  const tip = await git(w.repository, ['rev-parse', '--verify', '--quiet', `refs/heads/${w.base}`]);
  if (tip.code !== 0) throw no(`the base ${w.base} is not a branch`);
  const onto = tip.stdout.trim();
  const env = await identity(w.repository);
  const r = await git(w.path, ['rebase', '--autostash', '--quiet', onto], { env });
  if (r.code === 0) return { baseCommit: onto };
  const conflicts = (await git(w.path, ['diff', '--name-only', '--diff-filter=U', '-z'])).stdout
    .split('\0')
    .filter(Boolean);
  await git(w.path, ['rebase', '--abort']);
  throw no(
    conflicts.length
      ? `the worktree's commits conflict with ${w.base} in ${conflicts.join(', ')}; ask the agent to resolve them`
      : r.stderr.trim().slice(0, 300),
  );
}
