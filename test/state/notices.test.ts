// The cursor state machine and the notice queue (spec: "Watchers and cursors", "Notices: one,
// not many"): coalescing, the frozen watermark, acknowledge-on-drain, log-only kinds,
// self-suppression, registration, spawn seeding, the exact notice text and context key, the
// queue cap and dedupe, and heartbeat wakes.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventKind } from '../../electron/gateway/types';
import { contextKeyOf, count, humanTurn, noticeFor, openHarness, T0, type Harness } from './helpers';
import { MAIN } from '../helpers/spec';

const CHILD = 'agent:main:subagent:child';
const OTHER = 'agent:main:subagent:other';

let h: Harness;
beforeEach(() => {
  h = openHarness();
});
afterEach(() => {
  h.dispose();
});

describe('coalescing and the frozen watermark', () => {
  it('twenty rapid changes to one target produce one queued line naming L', () => {
    const { gw } = h;
    expect(gw.state.registerWatch(MAIN, CHILD)).toBe(true);
    const seqs: number[] = [];
    for (let i = 0; i < 20; i++) seqs.push(gw.state.record(humanTurn(CHILD))!.sequence);
    expect(seqs).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(gw.notices.peek(MAIN)).toEqual([noticeFor(CHILD, 0)]);
    // N froze at the first material event; only M moved.
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 0, notified: 1, material: 20 });
  });

  it('the watermark stays frozen while the notice is pending, and the text is byte-stable', () => {
    const { gw } = h;
    gw.state.record(humanTurn(CHILD));
    gw.state.record(humanTurn(CHILD));
    expect(gw.state.registerWatch(MAIN, CHILD)).toBe(true);
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 2, notified: 2, material: 2 });
    gw.state.record(humanTurn(CHILD)); // 3
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 2, notified: 3, material: 3 });
    const first = gw.notices.peek(MAIN);
    gw.state.record({
      ...humanTurn(CHILD),
      kind: 'goal_changed',
      summary: 'goal created',
      payload: undefined,
    }); // 4
    gw.state.record({
      sessionKey: CHILD,
      kind: 'upstream_missing',
      actorType: 'system',
      summary: 'upstream missing via claude',
      payload: { channel: 'claude' },
    }); // 5
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 2, notified: 3, material: 5 });
    expect(gw.notices.peek(MAIN)).toEqual(first);
    expect(first).toEqual([noticeFor(CHILD, 2)]);
  });
});

describe('acknowledge on drain', () => {
  it('drain without interleaved work acknowledges L := N and opens nothing', () => {
    const { gw } = h;
    gw.state.registerWatch(MAIN, CHILD);
    gw.state.record(humanTurn(CHILD)); // 1
    expect(gw.notices.drain(MAIN)).toEqual([noticeFor(CHILD, 0)]);
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 1, notified: 1, material: 1 });
    expect(gw.notices.peek(MAIN)).toEqual([]);
    // The next material event opens a fresh notice naming the acknowledged position.
    gw.state.record(humanTurn(CHILD)); // 2
    expect(gw.notices.peek(MAIN)).toEqual([noticeFor(CHILD, 1)]);
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 1, notified: 2, material: 2 });
  });

  it('interleaved work reopens exactly one notice naming the old N, once', () => {
    const { gw } = h;
    gw.state.registerWatch(MAIN, CHILD);
    gw.state.record(humanTurn(CHILD)); // 1: notice (0), N frozen at 1
    gw.state.record(humanTurn(CHILD)); // 2: M passes N
    gw.state.record(humanTurn(CHILD)); // 3
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 0, notified: 1, material: 3 });
    expect(gw.notices.drain(MAIN)).toEqual([noticeFor(CHILD, 0)]);
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 1, notified: 3, material: 3 });
    expect(gw.notices.peek(MAIN)).toEqual([noticeFor(CHILD, 1)]);
    // Draining the reopened notice acknowledges it and opens nothing more.
    expect(gw.notices.drain(MAIN)).toEqual([noticeFor(CHILD, 1)]);
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 3, notified: 3, material: 3 });
    expect(gw.notices.peek(MAIN)).toEqual([]);
    expect(gw.notices.drain(MAIN)).toEqual([]);
  });

  it('events after a reopen keep the reopened text (one line) and freeze nothing new', () => {
    const { gw } = h;
    gw.state.registerWatch(MAIN, CHILD);
    gw.state.record(humanTurn(CHILD)); // 1
    gw.state.record(humanTurn(CHILD)); // 2
    gw.notices.drain(MAIN); // L=1, N=2, reopened (1)
    gw.state.record(humanTurn(CHILD)); // 3: N != L stays 2, M=3, same text
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 1, notified: 2, material: 3 });
    expect(gw.notices.peek(MAIN)).toEqual([noticeFor(CHILD, 1)]);
    gw.notices.drain(MAIN); // L=2, N=3, reopened (2)
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 2, notified: 3, material: 3 });
    expect(gw.notices.peek(MAIN)).toEqual([noticeFor(CHILD, 2)]);
  });

  it('draining unrelated entries acknowledges nothing', () => {
    const { gw } = h;
    gw.state.registerWatch(MAIN, CHILD);
    gw.state.record(humanTurn(CHILD)); // 1: pending (0)
    gw.notices.drain(MAIN); // acknowledged: L=1
    gw.state.record(humanTurn(CHILD)); // 2: pending (1)
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 1, notified: 2, material: 2 });
    // Push the session-state entry out (oldest dropped), then queue entries that are not
    // session-state entries, or name a target this watcher holds no cursor on.
    for (let i = 0; i < 17; i++) gw.notices.enqueue(MAIN, { text: `unrelated ${i}` });
    expect(gw.notices.enqueue(MAIN, { text: 'cron', contextKey: 'cron:daily' })).toBe(true);
    expect(gw.notices.enqueue(MAIN, { text: 'odd', contextKey: 'session-state:zz' })).toBe(true);
    expect(gw.notices.enqueue(MAIN, noticeFor(OTHER, 0))).toBe(true);
    const drained = gw.notices.drain(MAIN);
    expect(drained).toHaveLength(20);
    expect(drained.some((e) => e.contextKey === contextKeyOf(CHILD))).toBe(false);
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 1, notified: 2, material: 2 });
    expect(gw.state.cursor(MAIN, OTHER)).toBeUndefined();
    expect(count(gw, 'session_watch_cursors')).toBe(1);
    expect(gw.notices.peek(MAIN)).toEqual([]);
  });

  it('a drain of only unrelated entries leaves every cursor untouched', () => {
    const { gw } = h;
    gw.state.registerWatch(MAIN, CHILD);
    gw.state.registerWatch(MAIN, OTHER);
    gw.state.record(humanTurn(CHILD)); // 1
    gw.state.record(humanTurn(OTHER)); // 2
    // Keep the state entries out of the drain by dropping them from the queue: 20 newer
    // unrelated entries push them out (oldest dropped).
    for (let i = 0; i < 20; i++) expect(gw.notices.enqueue(MAIN, { text: `unrelated ${i}` })).toBe(true);
    expect(gw.notices.peek(MAIN).every((e) => e.contextKey === undefined)).toBe(true);
    const drained = gw.notices.drain(MAIN);
    expect(drained).toHaveLength(20);
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 0, notified: 1, material: 1 });
    expect(gw.state.cursor(MAIN, OTHER)).toEqual({ lastSeen: 0, notified: 2, material: 2 });
  });

  it('a notice lost from the queue heals on the next material event', () => {
    const { gw } = h;
    gw.state.registerWatch(MAIN, CHILD);
    gw.state.record(humanTurn(CHILD)); // 1: pending (0)
    for (let i = 0; i < 20; i++) gw.notices.enqueue(MAIN, { text: `unrelated ${i}` });
    expect(gw.notices.peek(MAIN).some((e) => e.contextKey === contextKeyOf(CHILD))).toBe(false);
    gw.state.record(humanTurn(CHILD)); // 2: re-queues the same frozen text
    const q = gw.notices.peek(MAIN);
    expect(q).toHaveLength(20);
    expect(q[19]).toEqual(noticeFor(CHILD, 0));
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 0, notified: 1, material: 2 });
  });

  it('each drained session-state entry acknowledges its own target only', () => {
    const { gw } = h;
    gw.state.registerWatch(MAIN, CHILD);
    gw.state.registerWatch(MAIN, OTHER);
    gw.state.record(humanTurn(CHILD)); // 1
    gw.state.record(humanTurn(OTHER)); // 2
    expect(gw.notices.drain(MAIN)).toEqual([noticeFor(CHILD, 0), noticeFor(OTHER, 0)]);
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 1, notified: 1, material: 1 });
    expect(gw.state.cursor(MAIN, OTHER)).toEqual({ lastSeen: 2, notified: 2, material: 2 });
  });
});

describe('log-only kinds and self-suppression', () => {
  const LOG_ONLY: { kind: EventKind; summary: string; payload?: Record<string, unknown> }[] = [
    { kind: 'run_completed', summary: 'child run completed' },
    { kind: 'run_failed', summary: 'child run failed', payload: { outcome: 'error' } },
    { kind: 'run_failed', summary: 'child run timed out', payload: { outcome: 'timeout' } },
    { kind: 'run_failed', summary: 'child run cancelled', payload: { outcome: 'cancelled' } },
    { kind: 'compacted', summary: 'session compacted' },
    { kind: 'adopted', summary: 'adopted from claude', payload: { catalogId: 'claude', hostId: 'h1' } },
    { kind: 'child_spawned', summary: 'child session spawned' },
  ];

  it('log-only kinds never notify, never raise M and never reopen on drain', () => {
    const { gw } = h;
    gw.state.registerWatch(MAIN, CHILD);
    for (const e of LOG_ONLY) {
      expect(gw.state.record({ sessionKey: CHILD, actorType: 'system', ...e })).toBeDefined();
    }
    expect(gw.state.version(CHILD)).toBe(7);
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 0, notified: 0, material: 0 });
    expect(gw.notices.peek(MAIN)).toEqual([]);
    // A pending notice, then log-only events interleaved: the drain must not reopen.
    gw.state.record(humanTurn(CHILD)); // 8
    for (const e of LOG_ONLY) gw.state.record({ sessionKey: CHILD, actorType: 'system', ...e }); // 9..15
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 0, notified: 8, material: 8 });
    expect(gw.notices.drain(MAIN)).toEqual([noticeFor(CHILD, 0)]);
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 8, notified: 8, material: 8 });
    expect(gw.notices.peek(MAIN)).toEqual([]);
  });

  it('log-only kinds with producer watchers touch nothing either', () => {
    const { gw } = h;
    gw.state.registerWatch(MAIN, CHILD);
    gw.state.record({
      sessionKey: CHILD,
      kind: 'run_completed',
      actorType: 'agent',
      summary: 'child run completed',
      watchers: [MAIN, OTHER],
    });
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 0, notified: 0, material: 0 });
    expect(gw.state.cursor(OTHER, CHILD)).toBeUndefined();
    expect(gw.notices.peek(MAIN)).toEqual([]);
  });

  it('a watcher is never notified about what it caused itself', () => {
    const { gw } = h;
    gw.state.registerWatch(MAIN, CHILD);
    gw.state.registerWatch(OTHER, CHILD);
    gw.state.record({
      sessionKey: CHILD,
      kind: 'goal_changed',
      actorType: 'agent',
      actorId: MAIN,
      summary: 'goal created',
    }); // 1
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 0, notified: 0, material: 0 });
    expect(gw.notices.peek(MAIN)).toEqual([]);
    // The other watcher is notified about it.
    expect(gw.state.cursor(OTHER, CHILD)).toEqual({ lastSeen: 0, notified: 1, material: 1 });
    expect(gw.notices.peek(OTHER)).toEqual([noticeFor(CHILD, 0)]);
    // The actor id is compared in its stored (lower-case agent id) form.
    gw.state.record({
      sessionKey: CHILD,
      kind: 'goal_changed',
      actorType: 'agent',
      actorId: 'agent:MAIN:main',
      summary: 'goal objective changed',
    }); // 2
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 0, notified: 0, material: 0 });
    // Another actor does notify the first watcher.
    gw.state.record(humanTurn(CHILD)); // 3
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 0, notified: 3, material: 3 });
    expect(gw.notices.peek(MAIN)).toEqual([noticeFor(CHILD, 0)]);
  });
});

describe('registration', () => {
  it('registers at the current version: earlier history never produces a notice', () => {
    const { gw } = h;
    for (let i = 0; i < 5; i++) gw.state.record(humanTurn(CHILD));
    expect(gw.state.registerWatch(MAIN, CHILD)).toBe(true);
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 5, notified: 5, material: 5 });
    expect(gw.notices.peek(MAIN)).toEqual([]);
  });

  it('registering a target with no events starts at 0', () => {
    expect(h.gw.state.registerWatch(MAIN, CHILD)).toBe(true);
    expect(h.gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 0, notified: 0, material: 0 });
  });

  it('re-registration never clobbers pending state', () => {
    const { gw } = h;
    gw.state.registerWatch(MAIN, CHILD);
    gw.state.record(humanTurn(CHILD)); // 1
    gw.state.record(humanTurn(CHILD)); // 2
    const row = gw.db.prepare('SELECT * FROM session_watch_cursors').all();
    h.clock.advance(1000);
    expect(gw.state.registerWatch(MAIN, CHILD)).toBe(true);
    expect(gw.state.registerWatch('agent:MAIN:main', CHILD)).toBe(true);
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 0, notified: 1, material: 2 });
    expect(gw.db.prepare('SELECT * FROM session_watch_cursors').all()).toEqual(row);
    expect(gw.notices.peek(MAIN)).toEqual([noticeFor(CHILD, 0)]);
  });

  it('watching oneself, a bare watcher or a bare target returns false and writes nothing', () => {
    const { gw } = h;
    expect(gw.state.registerWatch(MAIN, MAIN)).toBe(false);
    expect(gw.state.registerWatch('agent:MAIN:main', MAIN)).toBe(false);
    expect(gw.state.registerWatch('global', CHILD)).toBe(false);
    expect(gw.state.registerWatch(MAIN, 'global')).toBe(false);
    expect(gw.state.registerWatch(MAIN, 'global', { targetAgentId: 'main' })).toBe(false);
    expect(count(gw, 'session_watch_cursors')).toBe(0);
  });
});

describe('spawn edges', () => {
  it('child_spawned seeds the producer watcher at its sequence, overwriting, without a notice', () => {
    const { gw } = h;
    gw.state.record(humanTurn(OTHER)); // 1 (someone else's log)
    const spawned = gw.state.record({
      sessionKey: CHILD,
      kind: 'child_spawned',
      actorType: 'agent',
      actorId: MAIN,
      summary: 'child session spawned',
      watchers: [MAIN],
    })!;
    expect(spawned.sequence).toBe(2);
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 2, notified: 2, material: 2 });
    expect(gw.notices.peek(MAIN)).toEqual([]);
    // A human intervenes: pending.
    gw.state.record(humanTurn(CHILD)); // 3
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 2, notified: 3, material: 3 });
    // Re-spawn under the same key re-seeds (overwrites the pending cursor).
    gw.state.record({
      sessionKey: CHILD,
      kind: 'child_spawned',
      actorType: 'agent',
      actorId: MAIN,
      summary: 'child session spawned',
      watchers: [MAIN],
    }); // 4
    expect(gw.state.cursor(MAIN, CHILD)).toEqual({ lastSeen: 4, notified: 4, material: 4 });
  });

  it('child_spawned does not touch other holders of a cursor on the child', () => {
    const { gw } = h;
    gw.state.registerWatch(OTHER, CHILD);
    gw.state.record({
      sessionKey: CHILD,
      kind: 'child_spawned',
      actorType: 'agent',
      actorId: MAIN,
      summary: 'child session spawned',
      watchers: [MAIN],
    }); // 1
    expect(gw.state.cursor(OTHER, CHILD)).toEqual({ lastSeen: 0, notified: 0, material: 0 });
    expect(gw.notices.peek(OTHER)).toEqual([]);
  });

  it('bare producer watchers are dropped', () => {
    const { gw } = h;
    gw.state.record({
      sessionKey: CHILD,
      kind: 'child_spawned',
      actorType: 'agent',
      summary: 'child session spawned',
      watchers: ['global'],
    });
    expect(count(gw, 'session_watch_cursors')).toBe(0);
  });
});

describe('notice text and context key', () => {
  it('is byte for byte the spec text with changesSince 12', () => {
    const { gw } = h;
    for (let i = 0; i < 12; i++) gw.state.record(humanTurn(CHILD));
    gw.state.registerWatch(MAIN, CHILD);
    gw.state.record(humanTurn(CHILD)); // 13
    expect(gw.notices.peek(MAIN)).toEqual([
      {
        text: 'Session "agent:main:subagent:child" changed (other actor). Reconcile before acting: session_status sessionKey "agent:main:subagent:child" changesSince 12.',
        contextKey: 'session-state:6167656e743a6d61696e3a7375626167656e743a6368696c64',
      },
    ]);
  });

  it('hex-encodes the UTF-8 bytes of non-ASCII keys in lower case', () => {
    const { gw } = h;
    const target = 'agent:main:subagent:Ünï-日本';
    gw.state.registerWatch(MAIN, target);
    gw.state.record(humanTurn(target));
    const [entry] = gw.notices.peek(MAIN);
    expect(entry!.contextKey).toBe(contextKeyOf(target));
    expect(entry!.contextKey).toBe(
      'session-state:6167656e743a6d61696e3a7375626167656e743ac39c6ec3af2de697a5e69cac',
    );
    // The drain decodes it back to the target and acknowledges it.
    gw.notices.drain(MAIN);
    expect(gw.state.cursor(MAIN, target)).toEqual({ lastSeen: 1, notified: 1, material: 1 });
  });
});

describe('the notice queue', () => {
  it('holds at most 20 entries, oldest dropped', () => {
    const { gw } = h;
    for (let i = 0; i < 25; i++) expect(gw.notices.enqueue(MAIN, { text: `entry ${i}` })).toBe(true);
    const q = gw.notices.peek(MAIN);
    expect(q).toHaveLength(20);
    expect(q[0]).toEqual({ text: 'entry 5' });
    expect(q[19]).toEqual({ text: 'entry 24' });
  });

  it('drops an incoming entry with the same text and context key; differing ones are kept', () => {
    const { gw } = h;
    expect(gw.notices.enqueue(MAIN, { text: 'a', contextKey: 'k1' })).toBe(true);
    expect(gw.notices.enqueue(MAIN, { text: 'a', contextKey: 'k1' })).toBe(false);
    expect(gw.notices.enqueue(MAIN, { text: 'a', contextKey: 'k2' })).toBe(true);
    expect(gw.notices.enqueue(MAIN, { text: 'a' })).toBe(true);
    expect(gw.notices.enqueue(MAIN, { text: 'a' })).toBe(false);
    expect(gw.notices.enqueue(MAIN, { text: 'b', contextKey: 'k1' })).toBe(true);
    expect(gw.notices.peek(MAIN)).toEqual([
      { text: 'a', contextKey: 'k1' },
      { text: 'a', contextKey: 'k2' },
      { text: 'a' },
      { text: 'b', contextKey: 'k1' },
    ]);
  });

  it('peek does not drain; drain empties the queue', () => {
    const { gw } = h;
    gw.notices.enqueue(MAIN, { text: 'x' });
    expect(gw.notices.peek(MAIN)).toEqual([{ text: 'x' }]);
    expect(gw.notices.peek(MAIN)).toEqual([{ text: 'x' }]);
    expect(gw.notices.drain(MAIN)).toEqual([{ text: 'x' }]);
    expect(gw.notices.peek(MAIN)).toEqual([]);
  });
});

describe('heartbeat wakes', () => {
  it('wakes a main-session watcher once within 20 s; a sub-agent watcher is never woken', () => {
    const { gw, clock } = h;
    const wakes: { key: string; at: number }[] = [];
    gw.waker.onWake((key) => wakes.push({ key, at: clock.now() }));
    const target = 'agent:main:acp:worker';
    gw.state.registerWatch(MAIN, target);
    gw.state.registerWatch(CHILD, target);
    gw.state.record(humanTurn(target)); // T0
    expect(wakes).toEqual([{ key: MAIN, at: T0 }]);
    clock.advance(5_000);
    gw.notices.drain(MAIN);
    gw.state.record(humanTurn(target)); // fresh notice at T0+5 s: coalesced
    clock.advance(14_999);
    gw.notices.drain(MAIN);
    gw.state.record(humanTurn(target)); // T0+19.999 s: coalesced
    expect(wakes).toEqual([{ key: MAIN, at: T0 }]);
    clock.advance(1);
    gw.notices.drain(MAIN);
    gw.state.record(humanTurn(target)); // T0+20 s: the window has passed
    expect(wakes).toEqual([
      { key: MAIN, at: T0 },
      { key: MAIN, at: T0 + 20_000 },
    ]);
    // The sub-agent watcher has its notice queued, but was never woken.
    expect(gw.notices.peek(CHILD)).toEqual([noticeFor(target, 0)]);
    expect(wakes.some((w) => w.key === CHILD)).toBe(false);
  });

  it('wakes for different main watchers do not coalesce with each other', () => {
    const { gw } = h;
    const wakes: string[] = [];
    gw.waker.onWake((key) => wakes.push(key));
    gw.state.registerWatch(MAIN, CHILD);
    gw.state.registerWatch('agent:ops:main', CHILD);
    gw.state.record(humanTurn(CHILD));
    expect(wakes.sort()).toEqual(['agent:main:main', 'agent:ops:main']);
  });
});
