// The worktrees channels through the API's dispatch (what the renderer calls), against a real
// gateway and a real repository: probe, start isolated, the fleet row's counts, the Changes tab's
// list and one file's patch, review, keep, and arguments refused before the gateway sees them.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiHandlers } from '../../electron/gateway/api/handlers';
import type { Envelope, SessionView, WorktreeChanges, WorktreeDiff } from '../../shared/ipc';
import { openTestGateway, tempDir, waitFor, type TestGateway } from '../helpers/gateway';
import { FIXTURE_AGENT, git, makeRepo } from './repo';

const APP = { name: 'Sightline', version: '0', mode: 'web' as const, dataDir: '/tmp/x' };
let t: TestGateway;
let repo: string;
afterEach(() => {
  t?.cleanup();
  fs.rmSync(repo, { recursive: true, force: true });
});

function setup() {
  t = openTestGateway();
  repo = makeRepo();
  t.gw.acp.profiles.save({
    id: 'fixture',
    name: 'Fixture',
    command: process.execPath,
    args: [FIXTURE_AGENT],
    env: {},
  });
  const api = createApiHandlers(t.gw, { app: APP });
  const raw = (channel: string, args: unknown) => api.dispatch(channel, args) as Promise<Envelope<unknown>>;
  const call = async <T>(channel: string, args: unknown): Promise<T> => {
    const r = await raw(channel, args);
    if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
    return r.value as T;
  };
  return { call, raw };
}

describe('worktrees channels', () => {
  it('probe, start isolated, counts in the fleet row, review, keep', async () => {
    const { call, raw } = setup();
    const plain = fs.realpathSync(tempDir());
    git(repo, 'branch', 'release');
    expect(await call('worktrees:probe', { path: repo })).toEqual({
      repository: repo,
      branch: 'main',
      branches: ['main', 'release'],
    });
    expect(await call('worktrees:probe', { path: plain })).toEqual({
      inPlaceReason: 'the folder is not in a git repository',
    });
    fs.rmSync(plain, { recursive: true });

    const view = await call<SessionView>('sessions:start', {
      acpProfileId: 'fixture',
      cwd: repo,
      label: 'Docs',
      message: 'write docs.md=one\\ntwo',
    });
    await waitFor(() => t.gw.runtime.sessionStatus(view.key) === 'idle', 10_000, 'turn');
    const diff = await call<WorktreeDiff>('worktrees:diff', { sessionKey: view.key });
    expect(diff.files).toEqual([{ path: 'docs.md', status: 'added', additions: 2, deletions: 0 }]);
    const row = await call<SessionView>('sessions:get', { sessionKey: view.key });
    expect(row.worktreeStats).toEqual({
      branch: view.worktree!.branch,
      files: 1,
      additions: 2,
      deletions: 0,
      uncommitted: 1,
    });

    // The Changes tab: the list without a patch, then one file's patch when it is opened.
    expect(await call<WorktreeChanges>('worktrees:changes', { sessionKey: view.key })).toEqual({
      files: [{ path: 'docs.md', status: 'added', additions: 2, deletions: 0 }],
      uncommitted: ['docs.md'],
      commits: 0,
      baseCommit: view.worktree!.baseCommit,
    });
    const opened = await call<{ path: string; patch: string }>('worktrees:file', {
      sessionKey: view.key,
      path: 'docs.md',
    });
    expect([opened.path, opened.patch.split('\n').slice(-4)]).toEqual([
      'docs.md',
      ['+one', '+two', '\\ No newline at end of file', ''],
    ]);
    expect(opened.patch).toBe(diff.patch);
    // Only a file the worktree changed: a name outside it (or a pattern) is refused, not run.
    for (const p of ['../etc/passwd', '*', 'README.md'])
      expect(await raw('worktrees:file', { sessionKey: view.key, path: p })).toEqual({
        ok: false,
        error: { code: 'invalid_argument', message: `${p} is not among the files this worktree changed` },
      });
    expect((await raw('worktrees:file', { sessionKey: view.key, path: '' })).ok).toBe(false);

    expect(
      await call('worktrees:review', {
        sessionKey: view.key,
        verdict: 'approve',
        comments: [],
        summary: 'Good.',
      }),
    ).toEqual({ sent: true });
    expect(
      (
        await raw('worktrees:review', {
          sessionKey: view.key,
          comments: [{ path: 'docs.md', line: 0, text: 'x' }],
        })
      ).ok,
    ).toBe(false);
    expect(await raw('worktrees:merge', { sessionKey: view.key, strategy: 'rebase' })).toEqual({
      ok: false,
      error: { code: 'invalid_argument', message: 'strategy: strategy must be squash or merge' },
    });
    expect(await raw('worktrees:diff', { sessionKey: 'agent:main:acp:nothere1' })).toEqual({
      ok: false,
      error: { code: 'not_found', message: 'Unknown sessionKey: agent:main:acp:nothere1' },
    });

    // Keep: Sightline stops tracking; the folder and branch stay for the person.
    expect(await call('worktrees:keep', { sessionKey: view.key })).toEqual({ kept: true });
    expect((await call<SessionView>('sessions:get', { sessionKey: view.key })).worktree).toBeUndefined();
    expect(fs.existsSync(path.join(view.worktree!.path, 'docs.md'))).toBe(true);
    expect(git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/sightline')).toBe(
      view.worktree!.branch,
    );
  });
});
