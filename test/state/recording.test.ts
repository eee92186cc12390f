// Appending to the signal log (spec: "The signal log", "Appending an event (one transaction)"):
// sequences, dedupe, best-effort failure, atomicity, clamping, summaries, bare keys.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventKind, RecordInput } from '../../electron/gateway/types';
import { count, cursorRows, DAY, HOUR, humanTurn, noticeFor, openHarness, T0, type Harness } from './helpers';
import { MAIN } from '../helpers/spec';

const CHILD = 'agent:main:subagent:child';

let h: Harness;
beforeEach(() => {
  h = openHarness();
});
afterEach(() => {
  h.dispose();
});

describe('sequences and heads', () => {
  it('assigns strictly increasing sequences across the database and keeps per-session heads', () => {
    const { gw } = h;
    const a = gw.state.record(humanTurn(CHILD))!;
    const b = gw.state.record(humanTurn(MAIN))!;
    const c = gw.state.record(humanTurn(CHILD))!;
    expect([a.sequence, b.sequence, c.sequence]).toEqual([1, 2, 3]);
    expect(gw.state.version(CHILD)).toBe(3);
    expect(gw.state.version(MAIN)).toBe(2);
    expect(gw.state.version('agent:main:subagent:never')).toBe(0);
    expect(
      gw.db
        .prepare(
          'SELECT session_key, agent_id, last_sequence, pruned_max_sequence FROM session_state_heads ORDER BY session_key',
        )
        .all(),
    ).toEqual([
      { session_key: MAIN, agent_id: 'main', last_sequence: 2, pruned_max_sequence: 0 },
      { session_key: CHILD, agent_id: 'main', last_sequence: 3, pruned_max_sequence: 0 },
    ]);
  });

  it('never reuses a sequence, also after the newest rows were deleted by other means', () => {
    const { gw } = h;
    for (let i = 0; i < 3; i++) gw.state.record(humanTurn(CHILD));
    gw.db.prepare('DELETE FROM session_state_events WHERE sequence >= 2').run();
    expect(gw.state.record(humanTurn(CHILD))!.sequence).toBe(4);
    h.restart();
    expect(h.gw.state.record(humanTurn(CHILD))!.sequence).toBe(5);
  });

  it('returns the stored event shape: optional fields only when present', () => {
    const { gw } = h;
    const e = gw.state.record({
      sessionKey: CHILD,
      kind: 'compacted',
      actorType: 'system',
      summary: 'session compacted',
    })!;
    expect(e).toEqual({
      sequence: 1,
      kind: 'compacted',
      actorType: 'system',
      occurredAt: T0,
      summary: 'session compacted',
    });
    const f = gw.state.record({
      sessionKey: CHILD,
      kind: 'run_failed',
      actorType: 'agent',
      actorId: MAIN,
      runId: 'run-7',
      summary: 'child run timed out',
      payload: { outcome: 'timeout' },
    })!;
    expect(f).toEqual({
      sequence: 2,
      kind: 'run_failed',
      actorType: 'agent',
      actorId: MAIN,
      runId: 'run-7',
      occurredAt: T0,
      summary: 'child run timed out',
      payload: { outcome: 'timeout' },
    });
    expect(gw.state.changesSince(CHILD, 0).events).toEqual([e, f]);
  });
});

describe('dedupe', () => {
  it('returns the existing event and changes nothing', () => {
    const { gw } = h;
    gw.state.registerWatch(MAIN, CHILD);
    const first = gw.state.record(humanTurn(CHILD, { dedupeKey: 'claude:thread-1:marker-42' }))!;
    gw.notices.drain(MAIN);
    const cursor = gw.state.cursor(MAIN, CHILD);
    h.clock.advance(1000);
    const again = gw.state.record(
      humanTurn(CHILD, {
        dedupeKey: 'claude:thread-1:marker-42',
        summary: 'different',
        payload: { channel: 'codex' },
      }),
    );
    expect(again).toEqual(first);
    expect(count(gw, 'session_state_events')).toBe(1);
    expect(gw.state.version(CHILD)).toBe(1);
    expect(gw.state.cursor(MAIN, CHILD)).toEqual(cursor);
    expect(gw.notices.peek(MAIN)).toEqual([]);
    // A dedupe key is global: another session with the same key also gets the existing event.
    expect(gw.state.record(humanTurn(MAIN, { dedupeKey: 'claude:thread-1:marker-42' }))).toEqual(first);
    expect(gw.state.version(MAIN)).toBe(0);
    // Without a dedupe key, or with another one, events append.
    expect(gw.state.record(humanTurn(CHILD))!.sequence).toBe(2);
    expect(gw.state.record(humanTurn(CHILD, { dedupeKey: 'claude:thread-1:marker-43' }))!.sequence).toBe(3);
  });
});

describe('best effort and atomicity', () => {
  const failingTrigger = `
    CREATE TRIGGER test_fail_cursor_insert BEFORE INSERT ON session_watch_cursors
      BEGIN SELECT RAISE(ABORT, 'injected cursor failure'); END;
    CREATE TRIGGER test_fail_cursor_update BEFORE UPDATE ON session_watch_cursors
      BEGIN SELECT RAISE(ABORT, 'injected cursor failure'); END;`;

  it('a failure inside the append transaction leaves no event, head or cursor row, and is logged', () => {
    const { gw, logger } = h;
    gw.state.registerWatch(MAIN, CHILD);
    gw.state.record(humanTurn(CHILD)); // 1
    gw.notices.drain(MAIN);
    const snapshot = {
      events: gw.db.prepare('SELECT * FROM session_state_events').all(),
      heads: gw.db.prepare('SELECT * FROM session_state_heads').all(),
      cursors: cursorRows(gw),
      seq: gw.db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'session_state_events'").get(),
    };
    gw.db.exec(failingTrigger);
    logger.lines.length = 0;
    let result: unknown = 'not called';
    expect(() => {
      result = gw.state.record(humanTurn(CHILD, { dedupeKey: 'd-1' }));
    }).not.toThrow();
    expect(result).toBeUndefined();
    expect(gw.db.prepare('SELECT * FROM session_state_events').all()).toEqual(snapshot.events);
    expect(gw.db.prepare('SELECT * FROM session_state_heads').all()).toEqual(snapshot.heads);
    expect(cursorRows(gw)).toEqual(snapshot.cursors);
    expect(
      gw.db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'session_state_events'").get(),
    ).toEqual(snapshot.seq);
    expect(gw.db.inTransaction).toBe(false);
    expect(gw.notices.peek(MAIN)).toEqual([]);
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]!.level).toBe('warn');
    expect(logger.lines[0]!.msg).toBe('state: append failed');
    expect(String(logger.lines[0]!.fields?.error)).toContain('injected cursor failure');
    // The seeding path (child_spawned) fails the same way.
    expect(
      gw.state.record({
        sessionKey: 'agent:main:subagent:c2',
        kind: 'child_spawned',
        actorType: 'agent',
        actorId: MAIN,
        summary: 'child session spawned',
        watchers: [MAIN],
      }),
    ).toBeUndefined();
    expect(gw.state.version('agent:main:subagent:c2')).toBe(0);
    // Once the fault is gone the log continues exactly where it was; the dedupe key is free.
    gw.db.exec('DROP TRIGGER test_fail_cursor_insert; DROP TRIGGER test_fail_cursor_update;');
    expect(gw.state.record(humanTurn(CHILD, { dedupeKey: 'd-1' }))!.sequence).toBe(2);
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 1, notified: 2, material: 2 });
    expect(gw.notices.peek(MAIN)).toEqual([noticeFor(CHILD, 1)]);
  });

  it('a failure on the head upsert rolls back the inserted event', () => {
    const { gw } = h;
    gw.db.exec(`CREATE TRIGGER test_fail_head BEFORE INSERT ON session_state_heads
      BEGIN SELECT RAISE(ABORT, 'injected head failure'); END;`);
    expect(gw.state.record(humanTurn(CHILD))).toBeUndefined();
    expect(count(gw, 'session_state_events')).toBe(0);
    expect(count(gw, 'session_state_heads')).toBe(0);
    expect(h.logger.lines.map((l) => l.msg)).toEqual(['state: append failed']);
  });

  it('invalid input is a logged soft failure, never a throw', () => {
    const { gw, logger } = h;
    const bad: unknown[] = [
      { ...humanTurn(CHILD), kind: 'message_content' },
      { ...humanTurn(CHILD), actorType: 'robot' },
      { ...humanTurn(CHILD), sessionKey: '' },
      { ...humanTurn(CHILD), sessionKey: 'global' }, // bare key without agentId
      { ...humanTurn(CHILD), summary: 42 },
      { ...humanTurn(CHILD), occurredAt: Number.NaN },
      { ...humanTurn(CHILD), payload: [1, 2] },
      null,
    ];
    for (const input of bad) expect(gw.state.record(input as RecordInput)).toBeUndefined();
    expect(count(gw, 'session_state_events')).toBe(0);
    expect(logger.lines).toHaveLength(bad.length);
    expect(logger.lines.every((l) => l.level === 'warn' && l.msg === 'state: append failed')).toBe(true);
  });

  it('a closed database makes record return undefined, logged', () => {
    const { gw, logger } = h;
    gw.db.close();
    expect(gw.state.record(humanTurn(CHILD))).toBeUndefined();
    expect(logger.lines.map((l) => l.msg)).toEqual(['state: append failed']);
    // Re-open for dispose(): close() on an already closed handle must not throw either.
    h.restart();
  });
});

describe('occurredAt and summary', () => {
  it('clamps occurredAt to [now - 24 h, now]; absent means now', () => {
    const { gw } = h;
    const at = (occurredAt?: number) =>
      gw.state.record(humanTurn(CHILD, occurredAt === undefined ? {} : { occurredAt }))!.occurredAt;
    expect(at()).toBe(T0);
    expect(at(T0 + 5 * 60_000)).toBe(T0);
    expect(at(T0 - HOUR)).toBe(T0 - HOUR);
    expect(at(T0 - DAY)).toBe(T0 - DAY);
    expect(at(T0 - DAY - 1)).toBe(T0 - DAY);
    expect(at(0)).toBe(T0 - DAY);
    const stored = gw.db.prepare('SELECT occurred_at AS t FROM session_state_events ORDER BY sequence').all();
    expect(stored).toEqual([T0, T0, T0 - HOUR, T0 - DAY, T0 - DAY, T0 - DAY].map((t) => ({ t })));
  });

  it('keeps summaries to one line of at most 200 characters', () => {
    const { gw } = h;
    const s1 = gw.state.record(
      humanTurn(CHILD, { summary: 'goal objective changed\nsecond line\r\nthird' }),
    )!.summary;
    expect(s1).not.toMatch(/[\r\n]/);
    expect(s1).toBe('goal objective changed second line third');
    const long = 'x'.repeat(450);
    const s2 = gw.state.record(humanTurn(CHILD, { summary: long }))!.summary;
    expect(s2).toBe('x'.repeat(200));
    const s3 = gw.state.record(humanTurn(CHILD, { summary: `${'a'.repeat(199)}😀tail` }))!.summary;
    expect(s3.length).toBeLessThanOrEqual(200);
    expect(s3).toBe('a'.repeat(199));
    const rows = gw.db.prepare('SELECT summary FROM session_state_events ORDER BY sequence').all() as {
      summary: string;
    }[];
    expect(rows.map((r) => r.summary)).toEqual([s1, s2, s3]);
  });
});

describe('bare keys', () => {
  it('are scoped by agent id: separate heads and logs, no cursors, no notices', () => {
    const { gw } = h;
    const rec = (agentId: string, kind: EventKind = 'goal_changed') =>
      gw.state.record({
        sessionKey: 'global',
        agentId,
        kind,
        actorType: 'human',
        summary: 'goal created',
        watchers: [MAIN],
      });
    expect(rec('alpha')!.sequence).toBe(1);
    expect(rec('beta')!.sequence).toBe(2);
    expect(rec('alpha')!.sequence).toBe(3);
    expect(rec('ALPHA', 'child_spawned')!.sequence).toBe(4);
    expect(gw.state.version('global', 'alpha')).toBe(4);
    expect(gw.state.version('global', 'beta')).toBe(2);
    expect(gw.state.version('global', 'gamma')).toBe(0);
    expect(gw.state.changesSince('global', 0, { agentId: 'alpha' }).events.map((e) => e.sequence)).toEqual([
      1, 3, 4,
    ]);
    expect(gw.state.changesSince('global', 0, { agentId: 'beta' }).events.map((e) => e.sequence)).toEqual([
      2,
    ]);
    expect(
      gw.db
        .prepare(
          "SELECT agent_id, last_sequence FROM session_state_heads WHERE session_key = 'global' ORDER BY agent_id",
        )
        .all(),
    ).toEqual([
      { agent_id: 'alpha', last_sequence: 4 },
      { agent_id: 'beta', last_sequence: 2 },
    ]);
    expect(gw.state.registerWatch(MAIN, 'global')).toBe(false);
    expect(gw.state.registerWatch(MAIN, 'global', { targetAgentId: 'alpha' })).toBe(false);
    expect(gw.state.registerWatch('global', CHILD)).toBe(false);
    expect(count(gw, 'session_watch_cursors')).toBe(0);
    expect(gw.notices.peek(MAIN)).toEqual([]);
  });

  it('without an agent id a bare key cannot be read', () => {
    expect(() => h.gw.state.changesSince('global', 0)).toThrow();
  });
});
