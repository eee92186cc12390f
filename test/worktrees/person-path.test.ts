// Issue 26 along a person's path, with real git and the real ACP fixture agent: two agents start
// isolated in one repository, each writes the same file and one of its own; the overlap shows; a
// review reaches the agent as one human message and its parent as one notice; one merges (squash)
// and the base has exactly its change; the other is refused (conflict), then discarded.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { noticeText } from '../../shared/session-keys';
import { openTestGateway, waitFor, type TestGateway } from '../helpers/gateway';
import { FIXTURE_AGENT, git, makeRepo } from './repo';

const PARENT = 'agent:main:main';
let t: TestGateway;
let repo: string;
let read: string[] = [];
afterEach(() => {
  t?.cleanup();
  if (repo) fs.rmSync(repo, { recursive: true, force: true });
});

function setup() {
  read = [];
  t = openTestGateway();
  repo = makeRepo();
  t.gw.acp.profiles.save({
    id: 'fixture',
    name: 'Fixture',
    command: process.execPath,
    args: [FIXTURE_AGENT],
    env: {},
  });
  t.gw.sessions.create({ key: PARENT });
  // What the parent's turns read: an overlap notice is not a session-state notice, so the notice
  // history does not keep it once a turn has read it.
  t.gw.events.on((e) => {
    if (e.type === 'notice:drained' && e.sessionKey === PARENT) read.push(...e.entries.map((n) => n.text));
  });
  return t.gw;
}

describe("worktrees along a person's path", () => {
  it('start isolated → agents write → diff → overlap → review → merge one, discard the other', async () => {
    const gw = setup();
    const head = git(repo, 'rev-parse', 'HEAD');
    const start = (label: string, message: string) =>
      gw.sessions.start({ acpProfileId: 'fixture', cwd: repo, label, message, parentKey: PARENT });
    const a = await start('Fix login', 'write shared.txt=from-a\\n a.txt=only-a\\n');
    const b = await start('Add signup', 'write shared.txt=from-b\\n b.txt=only-b\\n');
    for (const s of [a, b])
      await waitFor(() => gw.runtime.sessionStatus(s.key) === 'idle', 10_000, 'agent turn');

    // Each in its own worktree on its own branch, outside the repository, from main's HEAD.
    const id = (k: string) => k.split(':').pop();
    expect(a.worktree).toEqual({
      path: expect.stringMatching(
        new RegExp(`^${t.dataDir}/worktrees/sightline-repo-[a-z0-9]+-[0-9a-f]{6}/fix-login-${id(a.key)}$`),
      ),
      branch: `sightline/fix-login-${id(a.key)}`,
      base: 'main',
      baseCommit: head,
      repository: repo,
    });
    expect(a.cwd).toBe(a.worktree!.path);
    expect(gw.worktrees.get(b.key)!.branch).toBe(`sightline/add-signup-${id(b.key)}`);
    expect(fs.readFileSync(path.join(a.worktree!.path, 'shared.txt'), 'utf8')).toBe('from-a\n');
    expect(fs.readFileSync(path.join(repo, 'shared.txt'), 'utf8')).toBe('one\ntwo\nthree\n');

    const diff = await gw.worktrees.diff(a.key);
    expect(diff.files).toEqual([
      { path: 'a.txt', status: 'added', additions: 1, deletions: 0 },
      { path: 'shared.txt', status: 'modified', additions: 1, deletions: 3 },
    ]);
    expect(diff.uncommitted).toEqual(['a.txt', 'shared.txt']);
    expect(diff.commits).toBe(0);
    expect(diff.patch).toContain('+from-a');
    await gw.worktrees.diff(b.key);
    expect(gw.worktrees.stats(a.key)).toEqual({
      branch: a.worktree!.branch,
      files: 2,
      additions: 2,
      deletions: 3,
      uncommitted: 2,
    });

    // Overlap: the shared file, both sessions; the parent reads it in its next notice.
    expect(gw.worktrees.overlaps()).toEqual([
      { repository: repo, path: 'shared.txt', sessionKeys: [a.key, b.key].sort() },
    ]);
    const keys = [a.key, b.key].sort();
    // The notice follows the refresh that found the overlap (git runs asynchronously).
    // A turn of the parent may read it first (`read`); the agents' own turns reach the parent as
    // notices too, before or after it: wait for this one.
    const overlapText = `Worktrees overlap: sessions "${keys[0]}" and "${keys[1]}" both change shared.txt in ${repo}.`;
    await waitFor(() => (gw.notices.drain(PARENT), read.includes(overlapText)), 10_000, 'overlap notice');
    expect(read.filter((text) => text.startsWith('Worktrees overlap:'))).toEqual([overlapText]);

    // Review: one human message to the agent, one notice for its parent.
    const before = gw.transcripts.all(a.key).length;
    const seen = gw.state.cursor(PARENT, a.key)!.lastSeen;
    await gw.worktrees.review(a.key, {
      verdict: 'request_changes',
      summary: 'Nearly there.',
      comments: [{ path: 'shared.txt', line: 1, text: 'Keep the old first line.' }],
    });
    const sent = gw.transcripts
      .all(a.key)
      .slice(before)
      .filter((m) => m.role === 'user');
    expect(sent.map((m) => [m.actorType, m.text])).toEqual([
      [
        'human',
        'Review of your changes: Request changes.\n\nNearly there.\n\nshared.txt:1\nKeep the old first line.',
      ],
    ]);
    expect(gw.notices.peek(PARENT).map((e) => e.text)).toEqual([noticeText(a.key, seen)]);
    await waitFor(() => gw.runtime.sessionStatus(a.key) === 'idle', 10_000, 'review turn');

    // Merge A (squash): main has exactly A's change, in one commit on top of the old head.
    const { commit } = await gw.worktrees.merge(a.key, { message: 'Fix login' });
    expect(git(repo, 'rev-parse', 'main')).toBe(commit);
    expect(git(repo, 'rev-parse', `${commit}^`)).toBe(head);
    expect(git(repo, 'log', '-1', '--format=%s', 'main')).toBe('Fix login');
    expect(git(repo, 'diff', '--name-status', head, 'main')).toBe('A\ta.txt\nM\tshared.txt');
    expect(fs.readFileSync(path.join(repo, 'shared.txt'), 'utf8')).toBe('from-a\n');
    expect(git(repo, 'status', '--porcelain')).toBe('');

    // Merge B: main moved in a conflicting way; refused, nothing changed.
    await expect(gw.worktrees.merge(b.key)).rejects.toThrow(
      'Cannot merge: main moved and now conflicts with this worktree in shared.txt. Rebase the worktree onto main and resolve, then merge again. Nothing was changed.',
    );
    expect(git(repo, 'rev-parse', 'main')).toBe(commit);

    // Discard B after seeing what is lost: its folder and branch are gone, the session stays.
    const lost = await gw.worktrees.impact(b.key);
    expect([lost.files.map((f) => f.path), lost.uncommitted, lost.commits, lost.missing]).toEqual([
      ['b.txt', 'shared.txt'],
      ['b.txt', 'shared.txt'],
      0,
      false,
    ]);
    const bPath = b.worktree!.path;
    await gw.worktrees.discard(b.key);
    expect(fs.existsSync(bPath)).toBe(false);
    expect(git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/sightline')).toBe(
      a.worktree!.branch,
    );
    expect(gw.sessions.get(b.key)!.worktree).toBeUndefined();
    expect(gw.worktrees.overlaps()).toEqual([]);
  }, 40_000);
});
