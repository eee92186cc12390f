// Issue 26.6: every way a worktree cannot be made or used gives a clear message and leaves
// nothing half-made: not a repository (in place, said so), no commits, bare, detached HEAD,
// hostile base names and labels, a branch that exists, git missing from PATH, a paired node, a
// worktree folder deleted by hand, a repository deleted mid-diff, an agent that fails to start.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../../electron/gateway';
import { createWorktrees } from '../../electron/gateway/worktrees';
import { collectingLogger, openTestGateway, tempDir, type TestGateway } from '../helpers/gateway';
import { FIXTURE_AGENT, git, makeRepo } from './repo';

let t: TestGateway;
const folders: string[] = [];
afterEach(() => {
  t?.cleanup();
  for (const f of folders.splice(0)) fs.rmSync(f, { recursive: true, force: true });
});

function setup(env: Record<string, string> = {}) {
  t = openTestGateway();
  const repo = makeRepo();
  folders.push(repo);
  t.gw.acp.profiles.save({
    id: 'fixture',
    name: 'Fixture',
    command: process.execPath,
    args: [FIXTURE_AGENT],
    env,
    allowAgents: true,
  });
  return { gw: t.gw, repo };
}
const start = (cwd: string, more: Record<string, unknown> = {}) =>
  t.gw.sessions.start({ acpProfileId: 'fixture', cwd, message: 'answer hi', ...more });
const acpSessions = () => t.gw.sessions.list().filter((s) => s.key.includes(':acp:')).length;
/** The worktree folders under the data folder (`worktrees/<repository>/<name>`). */
function worktreeFolders(): string[] {
  const root = path.join(t.dataDir, 'worktrees');
  if (!fs.existsSync(root)) return [];
  return fs.readdirSync(root).flatMap((repo) => fs.readdirSync(path.join(root, repo)));
}
const branches = (repo: string) =>
  git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/sightline');

describe('worktrees refuse bad input clearly, making nothing', () => {
  it('a folder that is not a repository starts in place and says why; asked for a worktree it refuses', async () => {
    const { gw } = setup();
    const plain = fs.realpathSync(tempDir());
    folders.push(plain);
    expect(await gw.worktrees.probe(plain)).toEqual({
      inPlaceReason: 'the folder is not in a git repository',
    });
    const s = await start(plain);
    expect([s.cwd, s.worktree]).toEqual([plain, undefined]);
    await expect(start(plain, { isolation: 'worktree' })).rejects.toThrow(
      'Cannot start in a worktree: the folder is not in a git repository',
    );
    expect(acpSessions()).toBe(1);
  });

  it('no commits, bare, detached HEAD: each its own message; a base fixes the detached HEAD', async () => {
    const { repo } = setup();
    const empty = fs.realpathSync(tempDir());
    const bare = fs.realpathSync(tempDir());
    folders.push(empty, bare);
    git(empty, 'init', '--quiet');
    git(bare, 'init', '--quiet', '--bare');
    await expect(start(empty, { isolation: 'worktree' })).rejects.toThrow(
      'Cannot start in a worktree: the repository has no commits yet',
    );
    await expect(start(bare, { isolation: 'worktree' })).rejects.toThrow(
      'Cannot start in a worktree: the folder is a bare git repository (it has no files to work on)',
    );
    git(repo, 'checkout', '--quiet', '--detach');
    await expect(start(repo)).rejects.toThrow(
      `Cannot start in a worktree: HEAD is detached in ${repo}; choose a base branch to start from`,
    );
    expect([acpSessions(), worktreeFolders(), branches(repo)]).toEqual([0, [], '']);
    const s = await start(repo, { base: 'main' });
    expect(s.worktree!.base).toBe('main');
  });

  it('hostile base names never reach git; an unknown base is not found; labels cannot climb out', async () => {
    const { repo } = setup();
    for (const base of [
      '--upload-pack=touch /tmp/pwned',
      '../etc',
      'main..HEAD',
      'a b',
      'HEAD@{1}',
      '-x',
      'x.lock',
    ]) {
      const err = await start(repo, { base }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GatewayError);
      expect((err as GatewayError).message).toBe(
        `base is not a usable branch name or commit: ${JSON.stringify(base)} (no spaces, no leading "-", no "..")`,
      );
    }
    await expect(start(repo, { base: 'nope' })).rejects.toThrow(
      `No branch or commit named "nope" in ${repo}`,
    );
    await expect(start(repo, { isolation: 'sideways' })).rejects.toThrow(
      'isolation must be "worktree" or "none"',
    );
    expect([acpSessions(), worktreeFolders(), branches(repo)]).toEqual([0, [], '']);
    const s = await start(repo, { label: '../../etc/passwd' });
    const id = s.key.split(':').pop();
    expect(s.worktree!.branch).toBe(`sightline/etc-passwd-${id}`);
    expect(path.relative(path.join(t.dataDir, 'worktrees'), s.worktree!.path).split(path.sep)).toHaveLength(
      2,
    );
  });

  it('a branch that exists, a paired node, git missing from PATH', async () => {
    const { gw, repo } = setup();
    const service = createWorktrees({
      db: gw.db,
      now: Date.now,
      logger: collectingLogger(),
      scheduler: { after: () => () => undefined, every: () => () => undefined },
      root: path.join(t.dataDir, 'other'),
      indexDir: path.join(t.dataDir, 'other-index'),
      session: () => undefined,
      changed: () => undefined,
      overlapsChanged: () => undefined,
      notify: () => undefined,
    });
    git(repo, 'branch', 'sightline/taken-deadbeef');
    await expect(
      service.create({ sessionKey: 'agent:main:acp:deadbeef', label: 'Taken', cwd: repo }),
    ).rejects.toThrow(`A branch named sightline/taken-deadbeef already exists in ${repo}`);
    await expect(start(repo, { node: 'box-1', isolation: 'worktree' })).rejects.toThrow(
      'Worktrees on a paired node are not supported yet: start the agent in place on the node',
    );
    const saved = process.env.PATH;
    process.env.PATH = path.join(t.dataDir, 'no-programs-here');
    try {
      await expect(gw.worktrees.probe(repo)).rejects.toThrow(
        'git is not installed (no `git` program on PATH): worktrees need the system git',
      );
      await expect(start(repo, { isolation: 'worktree' })).rejects.toThrow('git is not installed');
    } finally {
      process.env.PATH = saved;
    }
    expect([acpSessions(), branches(repo)]).toEqual([0, 'sightline/taken-deadbeef']);
  });

  it('a worktree folder deleted by hand: the diff says so, the row shows it, discard still removes the branch', async () => {
    const { gw, repo } = setup();
    const s = await start(repo, { label: 'Gone' });
    fs.rmSync(s.worktree!.path, { recursive: true, force: true });
    await expect(gw.worktrees.diff(s.key)).rejects.toThrow(
      `The worktree folder ${s.worktree!.path} no longer exists (deleted by hand?). Discard it to remove its branch ${s.worktree!.branch}, or keep the branch.`,
    );
    expect(gw.worktrees.stats(s.key)!.missing).toBe(true);
    expect((await gw.worktrees.impact(s.key)).missing).toBe(true);
    await gw.worktrees.discard(s.key);
    expect([branches(repo), gw.worktrees.get(s.key)]).toEqual(['', undefined]);
  });

  it('a repository deleted mid-diff: a clear failure, and the gateway keeps serving', async () => {
    const { gw, repo } = setup();
    const s = await start(repo, { label: 'Doomed' });
    fs.writeFileSync(path.join(s.worktree!.path, 'new.txt'), 'x\n');
    const diffing = gw.worktrees.diff(s.key).then(
      () => 'finished before the deletion',
      (e: unknown) => e,
    );
    await new Promise((r) => setImmediate(r));
    fs.rmSync(repo, { recursive: true, force: true });
    fs.rmSync(s.worktree!.path, { recursive: true, force: true });
    const outcome = await diffing;
    if (typeof outcome !== 'string') {
      expect(outcome).toBeInstanceOf(GatewayError);
      expect((outcome as GatewayError).code).toBe('unavailable');
    }
    await expect(gw.worktrees.diff(s.key)).rejects.toThrow(
      `The worktree folder ${s.worktree!.path} no longer exists`,
    );
    await expect(gw.worktrees.discard(s.key)).rejects.toThrow(
      `Cannot discard the worktree: the repository ${repo} no longer exists`,
    );
    expect(gw.sessions.get(s.key)!.worktree).toBeDefined();
  });

  it('an agent that fails to start leaves no worktree, no branch and no session', async () => {
    const { repo } = setup({ ACP_FIXTURE_START: 'fail-session' });
    await expect(start(repo, { label: 'Never' })).rejects.toThrow('no sessions today');
    expect([acpSessions(), worktreeFolders(), branches(repo)]).toEqual([0, [], '']);
  });
});
