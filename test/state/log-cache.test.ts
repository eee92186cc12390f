// changesSince is answered from decoded log segments kept in memory (state/log-cache.ts). These
// tests hold every answer to the database's own answer, computed here with plain SQL, while the
// log is changed in every way it can change: this process's appends, another connection's and
// another process's commits, deletes by hand, pruning, and appends inside a transaction that
// rolls back.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../electron/gateway';
import { openDatabase, DB_FILE } from '../../electron/gateway/db/open';
import { CACHE_MAX_EVENTS, CACHE_MAX_SESSIONS, createLogCache } from '../../electron/gateway/state/log-cache';
import type { EventKind, RecordInput, StateEvent } from '../../electron/gateway/types';
import { collectingLogger, FakeClock, tempDir } from '../helpers/gateway';
import { mulberry32 } from '../helpers/random';

const open: Gateway[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const g of open.splice(0)) g.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function gateway(dataDir: string, clock = new FakeClock()): Gateway {
  const g = createGateway({ dataDir, autoStart: false, logger: collectingLogger(), now: clock.now });
  open.push(g);
  return g;
}

function dataDir(): string {
  const d = tempDir('sightline-log-cache-');
  dirs.push(d);
  return d;
}

interface Row {
  sequence: number;
  kind: EventKind;
  actor_type: StateEvent['actorType'];
  actor_id: string | null;
  run_id: string | null;
  occurred_at: number;
  summary: string;
  payload: string | null;
}

/** The answer the spec defines, read straight from the tables (no cache involved). */
function fromDatabase(g: Gateway, key: string, after: number, limit = 200) {
  const head = g.db
    .prepare(
      'SELECT last_sequence, pruned_max_sequence FROM session_state_heads WHERE session_key = ? AND agent_id = ?',
    )
    .get(key, 'main') as { last_sequence: number; pruned_max_sequence: number } | undefined;
  const stateVersion = head?.last_sequence ?? 0;
  const pruned = head?.pruned_max_sequence ?? 0;
  const first = g.db
    .prepare('SELECT min(sequence) AS s FROM session_state_events WHERE session_key = ? AND agent_id = ?')
    .get(key, 'main') as { s: number | null };
  const earliestAvailableSequence = first.s ?? (pruned > 0 ? pruned + 1 : 0);
  if (after >= stateVersion)
    return { stateVersion, events: [], truncated: false, earliestAvailableSequence, historyGap: false };
  const rows = g.db
    .prepare(
      `SELECT * FROM session_state_events WHERE session_key = ? AND agent_id = ? AND sequence > ?
       ORDER BY sequence LIMIT ?`,
    )
    .all(key, 'main', after, limit + 1) as Row[];
  const events = rows.slice(0, limit).map((r) => ({
    sequence: r.sequence,
    kind: r.kind,
    actorType: r.actor_type,
    occurredAt: r.occurred_at,
    summary: r.summary,
    ...(r.actor_id !== null ? { actorId: r.actor_id } : {}),
    ...(r.run_id !== null ? { runId: r.run_id } : {}),
    ...(r.payload !== null ? { payload: JSON.parse(r.payload) as unknown } : {}),
  }));
  return {
    stateVersion,
    events,
    truncated: rows.length > limit,
    earliestAvailableSequence,
    historyGap: after < pruned,
  };
}

/** Same answer, same key order (what a model reads as JSON). */
function expectExact(g: Gateway, key: string, after: number, limit?: number) {
  const got = g.state.changesSince(key, after, limit === undefined ? {} : { limit });
  expect(JSON.stringify(got)).toBe(JSON.stringify(fromDatabase(g, key, after, limit)));
  return got;
}

const KEYS = ['agent:main:subagent:a', 'agent:main:subagent:b', 'agent:main:subagent:c'];

function input(random: () => number, i: number): RecordInput {
  const sessionKey = KEYS[Math.floor(random() * KEYS.length)]!;
  switch (i % 4) {
    case 0:
      return {
        sessionKey,
        kind: 'human_direct_message',
        actorType: 'human',
        summary: 'human message via desktop',
        payload: { channel: 'desktop' },
      };
    case 1:
      return {
        sessionKey,
        kind: 'run_failed',
        actorType: 'agent',
        actorId: 'agent:main:main',
        runId: `r${i}`,
        summary: 'child run failed',
        payload: { outcome: 'error', detail: { code: i } },
      };
    case 2:
      return { sessionKey, kind: 'goal_changed', actorType: 'human', summary: 'goal objective changed' };
    default:
      return { sessionKey, kind: 'compacted', actorType: 'system', summary: 'session compacted' };
  }
}

describe('changesSince from memory is the database answer', () => {
  it('through appends, reads of every shape, deletes by hand, pruning and rolled-back appends', () => {
    const clock = new FakeClock();
    const dir = dataDir();
    const a = gateway(dir, clock);
    const b = gateway(dir, clock); // another connection on the same file
    a.state.registerWatch('agent:main:main', KEYS[0]!);
    const random = mulberry32(18);
    let checks = 0;
    for (let step = 0; step < 1500; step++) {
      const r = random();
      if (r < 0.45) {
        clock.advance(1000);
        expect(a.state.record(input(random, step))).toBeDefined();
      } else if (r < 0.5) {
        b.state.record(input(random, step)); // seen by A through PRAGMA data_version
      } else if (r < 0.52) {
        // Appends inside a transaction that rolls back leave no trace in A's answers.
        expect(() =>
          a.db.transaction(() => {
            a.state.record(input(random, step));
            expectExact(a, KEYS[0]!, 0, 5);
            throw new Error('roll back');
          })(),
        ).toThrow('roll back');
      } else if (r < 0.53) {
        const hi = (
          a.db.prepare('SELECT max(sequence) AS m FROM session_state_events').get() as { m: number }
        ).m;
        a.db
          .prepare('DELETE FROM session_state_events WHERE sequence = ?')
          .run(Math.floor(random() * hi) + 1);
      } else if (r < 0.535) {
        // Age pruning moves the earliest sequence and the pruned watermark.
        clock.advance(15 * 24 * 3_600_000);
        a.state.prune();
      } else {
        const key = KEYS[Math.floor(random() * KEYS.length)]!;
        const head = a.state.version(key);
        const after = Math.max(0, head - Math.floor(random() * 260));
        const limit = random() < 0.5 ? undefined : 1 + Math.floor(random() * 210);
        expectExact(a, key, after, limit);
        checks++;
      }
    }
    expect(checks).toBeGreaterThan(500);
  });

  it('another process committing to the file is seen by the next read', () => {
    const dir = dataDir();
    const g = gateway(dir);
    const key = KEYS[1]!;
    for (let i = 0; i < 5; i++)
      g.state.record({
        sessionKey: key,
        kind: 'compacted',
        actorType: 'system',
        summary: 'session compacted',
      });
    expect(expectExact(g, key, 0).events).toHaveLength(5); // now held in memory
    // A separate Node process appends one event and raises the head, as another gateway would.
    const script = `
      const Database = require('better-sqlite3');
      const db = new Database(process.argv[1]);
      db.pragma('busy_timeout = 5000');
      db.transaction(() => {
        const { sequence } = db.prepare("INSERT INTO session_state_events (session_key, agent_id, kind, actor_type, occurred_at, summary) VALUES (?, 'main', 'goal_changed', 'human', 1, 'goal created') RETURNING sequence").get(process.argv[2]);
        db.prepare('UPDATE session_state_heads SET last_sequence = ? WHERE session_key = ?').run(sequence, process.argv[2]);
      }).immediate();
      db.close();`;
    execFileSync(process.execPath, ['-e', script, path.join(dir, DB_FILE), key], {
      env: { ...process.env, NODE_PATH: path.resolve('node_modules') },
    });
    const got = expectExact(g, key, 0);
    expect(got.stateVersion).toBe(6);
    expect(got.events.map((e) => e.summary).at(-1)).toBe('goal created');
  });

  it('a caller owns the events it gets: changing them changes nothing held', () => {
    const g = gateway(dataDir());
    const key = KEYS[2]!;
    g.state.record({
      sessionKey: key,
      kind: 'run_failed',
      actorType: 'agent',
      summary: 'child run failed',
      payload: { outcome: 'error', nested: { a: 1 } },
    });
    const first = g.state.changesSince(key, 0);
    first.events[0]!.summary = 'changed';
    (first.events[0]!.payload!.nested as { a: number }).a = 2;
    first.events[0]!.payload!.outcome = 'timeout';
    expectExact(g, key, 0);
  });
});

describe('memory stays bounded', () => {
  it(`holds at most ${CACHE_MAX_EVENTS.toLocaleString('en-US')} events and ${CACHE_MAX_SESSIONS.toLocaleString('en-US')} sessions`, () => {
    const dir = dataDir();
    const db = openDatabase(dir);
    try {
      const cache = createLogCache(db);
      expect(cache.usable()).toBe(true);
      const ev = (sequence: number): StateEvent => ({
        sequence,
        kind: 'compacted',
        actorType: 'system',
        occurredAt: 0,
        summary: 's',
      });
      const many = Array.from({ length: 150 }, (_, i) => ev(i + 1));
      for (let s = 0; s < 6000; s++)
        cache.store(`agent:main:s${s}`, 'main', { head: 150, pruned: 0, earliest: 1 }, 0, many, true);
      expect(cache.size.sessions).toBeLessThanOrEqual(CACHE_MAX_SESSIONS);
      expect(cache.size.events).toBeLessThanOrEqual(CACHE_MAX_EVENTS);
      // The newest entry still answers exactly; an evicted one is a miss, not a wrong answer.
      expect(cache.page('agent:main:s5999', 'main', 140, 200)?.events.map((e) => e.sequence)).toEqual(
        Array.from({ length: 10 }, (_, i) => 141 + i),
      );
      expect(cache.page('agent:main:s0', 'main', 140, 200)).toBeUndefined();
      // One session larger than the budget keeps its newest events only.
      const huge = Array.from({ length: CACHE_MAX_EVENTS + 500 }, (_, i) => ev(i + 1));
      cache.store('agent:main:huge', 'main', { head: huge.length, pruned: 0, earliest: 1 }, 0, huge, true);
      expect(cache.size.events).toBeLessThanOrEqual(CACHE_MAX_EVENTS);
      expect(cache.page('agent:main:huge', 'main', 0, 200)).toBeUndefined();
      expect(cache.page('agent:main:huge', 'main', huge.length - 3, 200)?.events).toHaveLength(3);
    } finally {
      db.close();
    }
  });
});
