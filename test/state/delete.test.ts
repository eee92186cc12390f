// Deleting a session deletes its history (issue 13.2): signal log rows, head, every cursor where
// it is watcher or target, its upstream link, goal, runs and transcript — in one transaction.
// Sequences stay global and are never reused: a session re-created under the key starts clean,
// above everything the old one had.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GatewayEvent } from '../../electron/gateway/types';
import { waitFor } from '../helpers/poll';
import { count, cursorRows, humanTurn, noticeFor, openHarness, type Harness } from './helpers';
import { MAIN } from '../helpers/spec';

const CHILD = 'agent:main:subagent:child';
const PEER = 'agent:main:peer';
const GRANDCHILD = 'agent:main:subagent:grandchild';

let h: Harness;
beforeEach(() => {
  h = openHarness();
});
afterEach(() => h.dispose());

const rowsOf = (table: string, key: string) =>
  (h.gw.db.prepare(`SELECT count(*) AS n FROM ${table} WHERE session_key = ?`).get(key) as { n: number }).n;

function linkRow(key: string) {
  // The catalog's link as adoption writes it (what matters here: it references the session).
  h.gw.db
    .prepare(
      `INSERT INTO catalog_upstream_links (session_key, provider, thread_id, host_id, source_ref, source_hash, generation, created_at, updated_at)
       VALUES (?, 'claude', 't', 'h', '{}', 'x', 1, 0, 0)`,
    )
    .run(key);
  h.gw.db
    .prepare(`INSERT INTO catalog_own_texts (session_key, text, created_at) VALUES (?, 'sent', 0)`)
    .run(key);
}

describe('deleting a session deletes its history', () => {
  function fullSession() {
    const { gw } = h;
    gw.sessions.create({ key: CHILD, parentKey: MAIN, label: 'child' });
    gw.sessions.create({ key: PEER });
    gw.sessions.create({ key: GRANDCHILD, parentKey: CHILD });
    const spawned = gw.state.record({
      sessionKey: CHILD,
      kind: 'child_spawned',
      actorType: 'agent',
      actorId: MAIN,
      summary: 'child session spawned',
      watchers: [MAIN],
    })!;
    gw.state.registerWatch(CHILD, PEER); // held by the child
    gw.state.registerWatch(PEER, CHILD); // on the child
    gw.goals.set(CHILD, { objective: 'ship it' }, { type: 'human' });
    gw.db
      .prepare(`INSERT INTO runs (run_id, session_key, status, started_at) VALUES ('r1', ?, 'idle', 0)`)
      .run(CHILD);
    gw.db
      .prepare(
        `INSERT INTO session_messages (session_key, role, actor_type, text, created_at) VALUES (?, 'user', 'human', 'hi', 0)`,
      )
      .run(CHILD);
    linkRow(CHILD);
    const last = gw.state.record(humanTurn(CHILD))!;
    return { spawned, last };
  }

  it('removes log, head, cursors on both sides, link, goal, runs and transcript; version 0 after', () => {
    const { gw } = h;
    const { spawned } = fullSession();
    // Before: both watchers of the child hold one notice about it.
    expect(gw.notices.peek(MAIN)).toEqual([noticeFor(CHILD, spawned.sequence)]);
    expect(gw.notices.peek(PEER)).toEqual([noticeFor(CHILD, spawned.sequence)]);
    const pushed: GatewayEvent[] = [];
    gw.events.on((e) => pushed.push(e));
    gw.sessions.delete(CHILD);

    expect(gw.sessions.get(CHILD)).toBeUndefined();
    expect(gw.state.version(CHILD)).toBe(0);
    expect(gw.state.changesSince(CHILD, 0)).toEqual({
      stateVersion: 0,
      events: [],
      truncated: false,
      earliestAvailableSequence: 0,
      historyGap: false,
    });
    for (const table of [
      'session_state_events',
      'session_state_heads',
      'session_messages',
      'session_goals',
      'runs',
      'catalog_upstream_links',
      'catalog_own_texts',
    ])
      expect(rowsOf(table, CHILD), table).toBe(0);
    expect(cursorRows(gw)).toEqual([]);
    // The grandchild is detached, the others are untouched; no notice names the deleted session.
    expect(gw.sessions.get(GRANDCHILD)?.parentKey).toBeUndefined();
    expect(gw.sessions.get(PEER)).toBeDefined();
    expect(gw.notices.peek(MAIN)).toEqual([]);
    expect(gw.notices.peek(PEER)).toEqual([]);
    expect(gw.db.pragma('foreign_key_check')).toEqual([]);
    expect(pushed.filter((e) => e.type === 'session:deleted')).toEqual([
      { type: 'session:deleted', sessionKey: CHILD },
    ]);
  });

  it('a session re-created under the key starts clean, with higher sequences than the old one had', async () => {
    const { gw } = h;
    const { last } = fullSession();
    gw.sessions.delete(CHILD);
    const again = gw.sessions.create({ key: CHILD });
    expect(again.parentKey).toBeUndefined();
    expect(gw.goals.get(CHILD)).toBeUndefined();
    expect(gw.transcripts.all(CHILD)).toEqual([]);
    expect(gw.runtime.runs(CHILD)).toEqual([]);
    expect(gw.state.watchers(CHILD)).toEqual({ watchedBy: [], watching: [] });
    const first = gw.state.record(humanTurn(CHILD))!;
    expect(first.sequence).toBeGreaterThan(last.sequence);
    // A watcher of the new session sees versions only go up.
    expect(gw.state.changesSince(CHILD, 0).events.map((e) => e.sequence)).toEqual([first.sequence]);
    // Also after a restart (the counter is durable, not the max of what is left).
    gw.sessions.delete(CHILD);
    const restarted = h.restart();
    restarted.sessions.create({ key: CHILD });
    expect(restarted.state.record(humanTurn(CHILD))!.sequence).toBeGreaterThan(first.sequence);
  });

  it('is one transaction: a failure half way leaves the session and all of its history', () => {
    const { gw } = h;
    fullSession();
    const before = {
      log: rowsOf('session_state_events', CHILD),
      cursors: count(gw, 'session_watch_cursors'),
      messages: rowsOf('session_messages', CHILD),
    };
    // The registry row cannot go (a trigger stands in for a disk that refuses the write).
    gw.db.exec(
      `CREATE TEMP TRIGGER refuse BEFORE DELETE ON sessions BEGIN SELECT RAISE(ABORT, 'disk says no'); END`,
    );
    expect(() => gw.sessions.delete(CHILD)).toThrow('disk says no');
    gw.db.exec('DROP TRIGGER refuse');
    expect(gw.sessions.get(CHILD)?.parentKey).toBe(MAIN);
    expect(gw.sessions.get(GRANDCHILD)?.parentKey).toBe(CHILD);
    expect(rowsOf('session_state_events', CHILD)).toBe(before.log);
    expect(count(gw, 'session_watch_cursors')).toBe(before.cursors);
    expect(rowsOf('session_messages', CHILD)).toBe(before.messages);
    expect(gw.notices.peek(MAIN)).toHaveLength(1);
  });

  it("a bare key's log is scoped by agent: deleting one agent's session leaves the other's log", () => {
    const { gw } = h;
    gw.sessions.create({ key: 'global', agentId: 'main' });
    gw.state.record({ ...humanTurn('global'), agentId: 'main' });
    const ops = gw.state.record({ ...humanTurn('global'), agentId: 'ops' })!;
    gw.sessions.delete('global');
    expect(gw.state.version('global', 'main')).toBe(0);
    expect(gw.state.version('global', 'ops')).toBe(ops.sequence);
  });

  it('a key names one session: a bare key is registered for one agent', () => {
    const { gw } = h;
    gw.sessions.create({ key: 'global', agentId: 'main' });
    expect(() => gw.sessions.create({ key: 'global', agentId: 'ops' })).toThrow(
      'session key "global" is registered for agent "main"',
    );
    expect(gw.sessions.create({ key: 'global', agentId: 'main', label: 'again' }).label).toBe('again');
  });
});

describe('deleting a session while its run is running', () => {
  it('the cut-short run writes nothing back: version stays 0, no run, no outcome for the parent', async () => {
    const { gw } = h;
    // The scripted worker pauses for real between steps, long enough to be deleted mid-run.
    gw.agents.save({ id: 'main', providerSettings: { stepMs: '200', steps: '20' } });
    const r = await gw.tools.call(MAIN, 'sessions_spawn', { task: 'long work' });
    const key = (r as { ok: true; details: { childSessionKey: string } }).details.childSessionKey;
    await waitFor(() => gw.runtime.status(key)?.status === 'running', 5000, 'the child run');
    gw.sessions.delete(key);
    await gw.runtime.idle();
    expect(gw.state.version(key)).toBe(0);
    expect(gw.runtime.runs(key)).toEqual([]);
    expect(gw.transcripts.all(key)).toEqual([]);
    // The parent was not told about a child that no longer exists.
    expect(gw.transcripts.all(MAIN).filter((m) => m.text.includes(key))).toEqual([]);
  });
});
