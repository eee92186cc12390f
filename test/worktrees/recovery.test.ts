// A crash between `git worktree add` and the session's commit leaves a `creating` row: start-up
// removes the untouched worktree and its branch (no session), or marks it ready (the session did
// commit). An agent may ask for a worktree when it spawns an ACP child the profile lets agents
// start; a rebase moves the worktree onto its base's new tip.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorktrees } from '../../electron/gateway/worktrees';
import { collectingLogger, openTestGateway, waitFor, type TestGateway } from '../helpers/gateway';
import { FIXTURE_AGENT, git, makeRepo } from './repo';

let t: TestGateway;
let repo: string;
afterEach(() => {
  t?.cleanup();
  fs.rmSync(repo, { recursive: true, force: true });
});

const idle = { after: () => () => undefined, every: () => () => undefined };
const branches = () => git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/sightline');

describe('worktrees across a crash, a spawn and a rebase', () => {
  it('start-up removes a worktree whose session never committed, and keeps one whose session did', async () => {
    t = openTestGateway();
    repo = makeRepo();
    // What a start did before the process died: the row and `git worktree add`, no session.
    const crashed = createWorktrees({
      db: t.gw.db,
      now: Date.now,
      logger: collectingLogger(),
      scheduler: idle,
      root: path.join(t.dataDir, 'worktrees'),
      indexDir: path.join(t.dataDir, 'worktree-index'),
      session: () => undefined,
      changed: () => undefined,
      overlapsChanged: () => undefined,
      notify: () => undefined,
    });
    const orphan = await crashed.create({
      sessionKey: 'agent:main:acp:0badc0de',
      label: 'Orphan',
      cwd: repo,
    });
    const kept = await crashed.create({ sessionKey: 'agent:main:acp:00c0ffee', label: 'Kept', cwd: repo });
    t.gw.sessions.create({ key: 'agent:main:acp:00c0ffee', cwd: kept.path });
    expect(fs.existsSync(orphan.path)).toBe(true);
    expect(t.gw.worktrees.get('agent:main:acp:00c0ffee')).toBeUndefined(); // still `creating`

    const gw = t.restart();
    await gw.worktrees.recovered;
    expect(fs.existsSync(orphan.path)).toBe(false);
    expect(branches()).toBe('sightline/kept-00c0ffee');
    expect(gw.worktrees.get('agent:main:acp:00c0ffee')).toEqual(kept);
    expect(gw.sessions.get('agent:main:acp:00c0ffee')!.worktree).toEqual(kept);
  });

  it('sessions_spawn with isolation "worktree": the child works in a worktree of the caller\'s repository', async () => {
    t = openTestGateway();
    repo = makeRepo();
    const gw = t.gw;
    gw.acp.profiles.save({
      id: 'fixture',
      name: 'Fixture',
      command: process.execPath,
      args: [FIXTURE_AGENT],
      env: {},
    });
    gw.sessions.create({ key: 'agent:main:main', cwd: repo });
    const refused = await gw.tools.call('agent:main:main', 'sessions_spawn', {
      task: 'answer hi',
      runtime: 'acp',
      profile: 'fixture',
      isolation: 'worktree',
      label: 'Helper',
    });
    expect(refused).toEqual({ ok: false, error: 'profile "fixture" is not allowed for agents' });
    expect(branches()).toBe('');
    gw.acp.profiles.save({
      id: 'fixture',
      name: 'Fixture',
      command: process.execPath,
      args: [FIXTURE_AGENT],
      env: {},
      allowAgents: true,
    });
    const r = await gw.tools.call('agent:main:main', 'sessions_spawn', {
      task: 'write notes.txt=hello',
      runtime: 'acp',
      profile: 'fixture',
      isolation: 'worktree',
      label: 'Helper',
    });
    expect(r.ok).toBe(true);
    const child = (r as { details: { childSessionKey: string } }).details.childSessionKey;
    await waitFor(() => gw.runtime.sessionStatus(child) === 'idle', 10_000, 'child turn');
    const w = gw.worktrees.get(child)!;
    expect([w.branch, w.repository, gw.sessions.get(child)!.cwd]).toEqual([
      `sightline/helper-${child.split(':').pop()}`,
      repo,
      w.path,
    ]);
    expect((await gw.worktrees.diff(child)).files).toEqual([
      { path: 'notes.txt', status: 'added', additions: 1, deletions: 0 },
    ]);
    expect(fs.existsSync(path.join(repo, 'notes.txt'))).toBe(false);
  });

  it("rebase: the worktree moves onto the base's new tip (its uncommitted work kept)", async () => {
    t = openTestGateway();
    repo = makeRepo();
    const gw = t.gw;
    gw.acp.profiles.save({
      id: 'fixture',
      name: 'Fixture',
      command: process.execPath,
      args: [FIXTURE_AGENT],
      env: {},
    });
    const s = await gw.sessions.start({
      acpProfileId: 'fixture',
      cwd: repo,
      message: 'write mine.txt=mine',
      label: 'Mine',
    });
    await waitFor(() => gw.runtime.sessionStatus(s.key) === 'idle', 10_000, 'turn');
    fs.writeFileSync(path.join(repo, 'README.md'), '# moved on\n');
    git(repo, 'commit', '--quiet', '-am', 'moved');
    const tip = git(repo, 'rev-parse', 'main');
    expect(await gw.worktrees.rebase(s.key)).toEqual({ baseCommit: tip });
    expect(gw.worktrees.get(s.key)!.baseCommit).toBe(tip);
    expect(fs.readFileSync(path.join(s.worktree!.path, 'mine.txt'), 'utf8')).toBe('mine');
    expect((await gw.worktrees.diff(s.key)).files.map((f) => f.path)).toEqual(['mine.txt']);
  });
});
