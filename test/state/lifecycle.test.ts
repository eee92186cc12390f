// Restart recovery, pruning (retention, row cap, exact history gaps, monotonic heads) and the
// clean-up on reset and delete (spec: "Restart recovery", "Storage limits and pruning",
// "Watches clean themselves up").
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { count, cursorRows, DAY, HOUR, humanTurn, noticeFor, openHarness, T0, type Harness } from './helpers';
import { MAIN } from '../helpers/spec';

const OPS = 'agent:ops:main';
const CHILD = 'agent:main:subagent:child';
const OTHER = 'agent:main:subagent:other';

let h: Harness;
beforeEach(() => {
  h = openHarness();
});
afterEach(() => {
  h.dispose();
});

describe('start-up sweep', () => {
  it('re-queues one notice per pending cursor whose watcher exists (N := M, text names L)', () => {
    let gw = h.gw;
    gw.sessions.create({ key: MAIN });
    // OPS never becomes a session: its pending cursor must not be re-queued.
    gw.state.registerWatch(MAIN, CHILD);
    gw.state.registerWatch(MAIN, OTHER);
    gw.state.registerWatch(OPS, CHILD);
    gw.state.record(humanTurn(CHILD)); // 1: MAIN and OPS pending on CHILD (L=0, N=1)
    gw.notices.drain(MAIN); // MAIN acknowledged CHILD: L=1
    gw.state.record(humanTurn(CHILD)); // 2: MAIN L=1 N=2 M=2
    gw.state.record(humanTurn(CHILD)); // 3: MAIN L=1 N=2 M=3
    gw.state.record({
      sessionKey: OTHER,
      kind: 'compacted',
      actorType: 'system',
      summary: 'session compacted',
    }); // 4 log-only
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 1, notified: 2, material: 3 });
    expect(gw.state.cursor(OPS, CHILD)).toEqual({ lastSeen: 0, notified: 1, material: 3 });
    expect(gw.state.cursor(MAIN, OTHER)).toEqual({ lastSeen: 0, notified: 0, material: 0 });

    gw = h.restart();
    expect(gw.notices.peek(MAIN)).toEqual([noticeFor(CHILD, 1)]);
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 1, notified: 3, material: 3 });
    expect(gw.notices.peek(OPS)).toEqual([]);
    expect(gw.state.cursor(OPS, CHILD)).toEqual({ lastSeen: 0, notified: 1, material: 3 });
    expect(gw.state.cursor(MAIN, OTHER)).toEqual({ lastSeen: 0, notified: 0, material: 0 });

    // Draining the re-queued notice acknowledges everything: N was raised to M, no reopen.
    expect(gw.notices.drain(MAIN)).toEqual([noticeFor(CHILD, 1)]);
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 3, notified: 3, material: 3 });
    expect(gw.notices.peek(MAIN)).toEqual([]);

    // Once OPS exists, the next start re-queues its notice too.
    gw.sessions.create({ key: OPS });
    gw = h.restart();
    expect(gw.notices.peek(OPS)).toEqual([noticeFor(CHILD, 0)]);
    expect(gw.notices.peek(MAIN)).toEqual([]);
  });

  it('prunes at the end of the start-up sweep', () => {
    h.gw.state.record(humanTurn(CHILD)); // 1 @T0
    h.gw.state.record(humanTurn(OTHER)); // 2 @T0
    h.clock.advance(30 * DAY + 1);
    const gw = h.restart();
    expect(count(gw, 'session_state_events')).toBe(0);
    expect(gw.state.version(CHILD)).toBe(1);
    expect(gw.state.changesSince(CHILD, 0)).toEqual({
      stateVersion: 1,
      events: [],
      truncated: false,
      earliestAvailableSequence: 2,
      historyGap: true,
    });
  });

  it('gw.state.sweep() is idempotent on the queue', () => {
    const { gw } = h;
    gw.sessions.create({ key: MAIN });
    gw.state.registerWatch(MAIN, CHILD);
    gw.state.record(humanTurn(CHILD));
    gw.state.sweep();
    gw.state.sweep();
    expect(gw.notices.peek(MAIN)).toEqual([noticeFor(CHILD, 0)]);
  });
});

describe('retention pruning (30 days)', () => {
  it('deletes old events, raises the pruned watermark, keeps heads, and sets historyGap exactly', () => {
    const { gw, clock } = h;
    gw.state.record(humanTurn(CHILD)); // 1 @T0
    gw.state.record(humanTurn(OTHER)); // 2 @T0
    gw.state.record(humanTurn(CHILD)); // 3 @T0
    clock.advance(10 * DAY);
    gw.state.record(humanTurn(CHILD)); // 4 @T0+10d
    expect(gw.state.changesSince(CHILD, 0).historyGap).toBe(false);

    clock.t = T0 + 30 * DAY; // exactly 30 days: not older than the retention period yet
    gw.state.prune();
    expect(count(gw, 'session_state_events')).toBe(4);

    clock.t = T0 + 30 * DAY + 1;
    gw.state.prune();
    expect(gw.db.prepare('SELECT sequence FROM session_state_events ORDER BY sequence').all()).toEqual([
      { sequence: 4 },
    ]);
    expect(
      gw.db
        .prepare(
          'SELECT session_key, last_sequence, pruned_max_sequence FROM session_state_heads ORDER BY session_key',
        )
        .all(),
    ).toEqual([
      { session_key: CHILD, last_sequence: 4, pruned_max_sequence: 3 },
      { session_key: OTHER, last_sequence: 2, pruned_max_sequence: 2 },
    ]);
    // Heads never decrease.
    expect(gw.state.version(CHILD)).toBe(4);
    expect(gw.state.version(OTHER)).toBe(2);

    const gap = gw.state.changesSince(CHILD, 0);
    expect(gap).toEqual({
      stateVersion: 4,
      events: [
        {
          sequence: 4,
          kind: 'human_direct_message',
          actorType: 'human',
          actorId: 'person:ada',
          occurredAt: T0 + 10 * DAY,
          summary: 'human message via desktop',
          payload: { channel: 'desktop' },
        },
      ],
      truncated: false,
      earliestAvailableSequence: 4,
      historyGap: true,
    });
    expect(gw.state.changesSince(CHILD, 2).historyGap).toBe(true);
    expect(gw.state.changesSince(CHILD, 3).historyGap).toBe(false);
    expect(gw.state.changesSince(CHILD, 3).events.map((e) => e.sequence)).toEqual([4]);
    // Everything pruned for OTHER: its head survives; at the head there is no gap.
    expect(gw.state.changesSince(OTHER, 1)).toEqual({
      stateVersion: 2,
      events: [],
      truncated: false,
      earliestAvailableSequence: 3,
      historyGap: true,
    });
    expect(gw.state.changesSince(OTHER, 2)).toEqual({
      stateVersion: 2,
      events: [],
      truncated: false,
      earliestAvailableSequence: 3,
      historyGap: false,
    });
    // A version beyond the head: no events, no gap.
    expect(gw.state.changesSince(CHILD, 99)).toMatchObject({
      stateVersion: 4,
      events: [],
      truncated: false,
      historyGap: false,
    });

    // New events after pruning continue above every pruned sequence.
    expect(gw.state.record(humanTurn(OTHER))!.sequence).toBe(5);
    expect(gw.state.changesSince(OTHER, 2).historyGap).toBe(false);
  });

  it('never lowers a watermark and never creates a head', () => {
    const { gw, clock } = h;
    gw.state.record(humanTurn(CHILD)); // 1
    clock.advance(31 * DAY);
    gw.state.prune();
    expect(gw.db.prepare('SELECT pruned_max_sequence AS p FROM session_state_heads').get()).toEqual({ p: 1 });
    // Orphan events (no head) are pruned without creating one.
    gw.db
      .prepare(
        `INSERT INTO session_state_events (session_key, agent_id, kind, actor_type, occurred_at, summary) VALUES (?, 'main', 'compacted', 'system', ?, 'session compacted')`,
      )
      .run('agent:main:subagent:orphan', clock.t - 40 * DAY);
    gw.db.prepare('UPDATE session_state_heads SET pruned_max_sequence = 7').run();
    gw.state.record(humanTurn(CHILD)); // 3
    clock.advance(31 * DAY);
    gw.state.prune();
    expect(
      gw.db.prepare('SELECT session_key, last_sequence, pruned_max_sequence FROM session_state_heads').all(),
    ).toEqual([{ session_key: CHILD, last_sequence: 3, pruned_max_sequence: 7 }]);
    expect(count(gw, 'session_state_events')).toBe(0);
  });

  it('deleting rows by other means never sets historyGap', () => {
    const { gw } = h;
    for (let i = 0; i < 5; i++) gw.state.record(humanTurn(CHILD));
    gw.db.prepare('DELETE FROM session_state_events WHERE sequence <= 3').run();
    const c = gw.state.changesSince(CHILD, 0);
    expect(c.historyGap).toBe(false);
    expect(c.events.map((e) => e.sequence)).toEqual([4, 5]);
    expect(c.earliestAvailableSequence).toBe(4);
  });

  it('expires cursors untouched for 30 days', () => {
    const { gw, clock } = h;
    gw.state.registerWatch(MAIN, CHILD); // updated_at T0
    clock.advance(20 * DAY);
    gw.state.registerWatch(MAIN, OTHER); // updated_at T0+20d
    clock.advance(10 * DAY + 1);
    gw.state.prune();
    expect(gw.state.cursor(MAIN, CHILD)).toBeUndefined();
    expect(gw.state.cursor(MAIN, OTHER)).toEqual({ lastSeen: 0, notified: 0, material: 0 });
  });

  it('runs after an append at most once an hour', () => {
    const { gw, clock } = h;
    gw.state.record(humanTurn(CHILD)); // 1 @T0
    clock.advance(31 * DAY); // the start-up prune happened at T0
    gw.state.record(humanTurn(OTHER)); // prunes 1
    expect(count(gw, 'session_state_events')).toBe(1);
    gw.db
      .prepare(
        `INSERT INTO session_state_events (session_key, agent_id, kind, actor_type, occurred_at, summary) VALUES (?, 'main', 'compacted', 'system', 0, 'session compacted')`,
      )
      .run(CHILD);
    clock.advance(HOUR - 1);
    gw.state.record(humanTurn(OTHER)); // within the hour: no prune
    expect(count(gw, 'session_state_events')).toBe(3);
    clock.advance(1);
    gw.state.record(humanTurn(OTHER)); // an hour later: prunes the old row
    expect(count(gw, 'session_state_events')).toBe(3);
    expect(
      gw.db.prepare('SELECT count(*) AS n FROM session_state_events WHERE occurred_at = 0').get(),
    ).toEqual({ n: 0 });
  });
});

describe('row-cap pruning (50,000 rows)', () => {
  it('deletes the oldest rows beyond 50,000 and marks the gap only for the sessions that lost rows', () => {
    const { gw } = h;
    for (let i = 0; i < 7; i++) gw.state.record(humanTurn(CHILD)); // 1..7
    gw.state.record(humanTurn(OTHER)); // 8
    gw.state.record(humanTurn(CHILD)); // 9
    const BULK = 'agent:main:subagent:bulk';
    gw.db.transaction(() => {
      for (let i = 0; i < 49_995; i++) {
        if (
          gw.state.record({
            sessionKey: BULK,
            kind: 'compacted',
            actorType: 'system',
            summary: 'session compacted',
          }) === undefined
        ) {
          throw new Error('append failed');
        }
      }
    })();
    expect(count(gw, 'session_state_events')).toBe(50_004);
    gw.state.prune();
    expect(count(gw, 'session_state_events')).toBe(50_000);
    expect(gw.db.prepare('SELECT min(sequence) AS s FROM session_state_events').get()).toEqual({ s: 5 });
    expect(
      gw.db
        .prepare(
          'SELECT session_key, last_sequence, pruned_max_sequence FROM session_state_heads ORDER BY session_key',
        )
        .all(),
    ).toEqual([
      { session_key: BULK, last_sequence: 50_004, pruned_max_sequence: 0 },
      { session_key: CHILD, last_sequence: 9, pruned_max_sequence: 4 },
      { session_key: OTHER, last_sequence: 8, pruned_max_sequence: 0 },
    ]);
    expect(gw.state.changesSince(CHILD, 3).historyGap).toBe(true);
    expect(gw.state.changesSince(CHILD, 4)).toMatchObject({
      historyGap: false,
      earliestAvailableSequence: 5,
    });
    expect(gw.state.changesSince(CHILD, 4).events.map((e) => e.sequence)).toEqual([5, 6, 7, 9]);
    // OTHER lost nothing: no gap at 0 although its version predates the database's oldest row.
    expect(gw.state.changesSince(OTHER, 0)).toMatchObject({
      historyGap: false,
      earliestAvailableSequence: 8,
    });
    expect(gw.state.changesSince(BULK, 0)).toMatchObject({
      historyGap: false,
      earliestAvailableSequence: 10,
      truncated: true,
    });
    // Heads monotonic; the next sequence continues.
    expect(gw.state.version(CHILD)).toBe(9);
    expect(gw.state.record(humanTurn(CHILD))!.sequence).toBe(50_005);
  });
});

describe('reset and delete', () => {
  it('reset removes the cursors the session holds and its queue, not cursors on it', () => {
    const { gw } = h;
    gw.sessions.create({ key: MAIN });
    gw.sessions.create({ key: CHILD, parentKey: MAIN });
    gw.state.registerWatch(MAIN, CHILD);
    gw.state.registerWatch(MAIN, OTHER);
    gw.state.registerWatch(OPS, MAIN);
    gw.state.record(humanTurn(CHILD));
    expect(gw.notices.peek(MAIN)).toHaveLength(1);
    gw.sessions.reset(MAIN);
    expect(gw.state.cursor(MAIN, CHILD)).toBeUndefined();
    expect(gw.state.cursor(MAIN, OTHER)).toBeUndefined();
    expect(gw.state.cursor(OPS, MAIN)).toEqual({ lastSeen: 0, notified: 0, material: 0 });
    expect(gw.notices.peek(MAIN)).toEqual([]);
    expect(gw.sessions.get(MAIN)).toBeDefined();
    // The signal log is history: reset keeps it.
    expect(gw.state.version(CHILD)).toBe(1);
  });

  it('delete removes cursors where either side is the deleted session', () => {
    const { gw } = h;
    gw.sessions.create({ key: MAIN });
    gw.sessions.create({ key: CHILD, parentKey: MAIN });
    gw.state.registerWatch(MAIN, CHILD);
    gw.state.registerWatch(CHILD, OTHER);
    gw.state.registerWatch(OPS, CHILD);
    gw.state.registerWatch(MAIN, OTHER);
    gw.sessions.delete(CHILD);
    expect(gw.sessions.get(CHILD)).toBeUndefined();
    expect(cursorRows(gw)).toEqual([
      { watcher_key: MAIN, target_key: OTHER, last_seen: 0, notified: 0, material: 0, updated_at: T0 },
    ]);
  });

  it('the human-turn gate: a parent or a watcher', () => {
    const { gw } = h;
    gw.sessions.create({ key: CHILD, parentKey: MAIN });
    gw.sessions.create({ key: OTHER });
    expect(gw.state.hasParentOrWatcher(CHILD)).toBe(true);
    expect(gw.state.hasParentOrWatcher(OTHER)).toBe(false);
    gw.state.registerWatch(MAIN, OTHER);
    expect(gw.state.hasParentOrWatcher(OTHER)).toBe(true);
    gw.sessions.reset(MAIN);
    expect(gw.state.hasParentOrWatcher(OTHER)).toBe(false);
  });
});
