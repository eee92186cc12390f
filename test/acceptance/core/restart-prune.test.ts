import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DAY,
  MAIN,
  ensureSession,
  humanEvent,
  logEvent,
  noticeText,
  contextKeyFor,
  openEnv,
  stateEntries,
  type Env,
} from './harness';

const PEER = 'agent:main:peer';
let env: Env;
beforeEach(() => {
  env = openEnv();
  ensureSession(env.gw, MAIN);
  ensureSession(env.gw, PEER);
});
afterEach(() => env.close());

describe('restart recovery', () => {
  it('start-up sweep re-queues one notice per pending cursor whose watcher exists (N := M, text names L)', () => {
    let gw = env.gw;
    const SUB = 'agent:main:subagent:w';
    ensureSession(gw, SUB, MAIN);
    const ACKED = 'agent:main:acked';
    ensureSession(gw, ACKED);
    expect(gw.state.registerWatch(MAIN, PEER)).toBe(true);
    expect(gw.state.registerWatch(SUB, PEER)).toBe(true);
    expect(gw.state.registerWatch(ACKED, PEER)).toBe(true);
    const ghostRegistered = gw.state.registerWatch('agent:main:ghost', PEER);
    const L = gw.state.cursor(MAIN, PEER)!.lastSeen;
    humanEvent(gw, PEER);
    humanEvent(gw, PEER);
    const s3 = humanEvent(gw, PEER).sequence;
    gw.notices.drain(ACKED); // reopens once
    gw.notices.drain(ACKED); // fully acknowledged
    expect(gw.state.cursor(ACKED, PEER)!.lastSeen).toBe(s3);

    gw = env.restart();
    expect(gw.notices.peek(MAIN)).toEqual([{ text: noticeText(PEER, L), contextKey: contextKeyFor(PEER) }]);
    expect(gw.notices.peek(SUB).map((e) => e.text)).toEqual([noticeText(PEER, L)]);
    expect(gw.notices.peek(ACKED)).toHaveLength(0);
    expect(gw.notices.peek('agent:main:ghost')).toHaveLength(0);
    expect(gw.state.cursor(MAIN, PEER)).toEqual({ lastSeen: L, notified: s3, material: s3 });
    if (ghostRegistered)
      expect(gw.state.cursor('agent:main:ghost', PEER)?.notified ?? 0).toBeLessThanOrEqual(s3);
    // a second sweep does not duplicate
    gw.state.sweep();
    expect(stateEntries(gw, MAIN)).toHaveLength(1);
    // drain after restart acknowledges up to M and does not reopen
    gw.notices.drain(MAIN);
    expect(gw.state.cursor(MAIN, PEER)).toEqual({ lastSeen: s3, notified: s3, material: s3 });
    expect(gw.notices.peek(MAIN)).toHaveLength(0);
  });

  it('a deleted watcher gets nothing re-queued after restart', () => {
    let gw = env.gw;
    const W = 'agent:main:watcher';
    ensureSession(gw, W);
    gw.state.registerWatch(W, PEER);
    humanEvent(gw, PEER);
    gw.sessions.delete(W);
    gw = env.restart();
    expect(gw.notices.peek(W)).toHaveLength(0);
    expect(gw.state.cursor(W, PEER)).toBeUndefined();
  });

  it('versions and cursors survive restart; sequences continue', () => {
    let gw = env.gw;
    gw.state.registerWatch(MAIN, PEER);
    const s = humanEvent(gw, PEER).sequence;
    gw = env.restart();
    expect(gw.state.version(PEER)).toBe(s);
    expect(humanEvent(gw, PEER).sequence).toBeGreaterThan(s);
  });
});

describe('pruning', () => {
  it('retention: events older than 30 days go; historyGap only from the pruned watermark', () => {
    const { gw } = env;
    ensureSession(gw, 'agent:main:x');
    // other sessions' events first, so this session's first sequence is > 1
    for (let i = 0; i < 5; i++) humanEvent(gw, 'agent:main:x');
    const e1 = humanEvent(gw, PEER).sequence;
    humanEvent(gw, PEER);
    const e3 = humanEvent(gw, PEER).sequence;
    // no gap before any pruning, even though sequence 1..e1-1 are not this session's
    expect(gw.state.changesSince(PEER, 0).historyGap).toBe(false);
    expect(gw.state.changesSince(PEER, 0).earliestAvailableSequence).toBe(e1);
    gw.state.prune();
    expect(gw.state.changesSince(PEER, 0).historyGap).toBe(false);
    env.advance(20 * DAY);
    const e4 = humanEvent(gw, PEER).sequence;
    env.advance(11 * DAY); // e1..e3 are 31 days old, e4 is 11 days old
    gw.state.prune();
    const all = gw.state.changesSince(PEER, 0);
    expect(all.events.map((e) => e.sequence)).toEqual([e4]);
    expect(all.historyGap).toBe(true);
    expect(all.earliestAvailableSequence).toBe(e4);
    expect(all.stateVersion).toBe(e4);
    expect(gw.state.changesSince(PEER, e3 - 1).historyGap).toBe(true);
    expect(gw.state.changesSince(PEER, e3).historyGap).toBe(false);
    expect(gw.state.changesSince(PEER, e3).events.map((e) => e.sequence)).toEqual([e4]);
    expect(gw.state.changesSince(PEER, e4).historyGap).toBe(false);
  });

  it('the pruned watermark of a bare key is scoped by agent id', () => {
    const { gw } = env;
    const rec = (agentId: string) =>
      gw.state.record({
        sessionKey: 'global',
        agentId,
        kind: 'goal_changed',
        actorType: 'human',
        summary: 'goal created',
      })!.sequence;
    rec('main');
    const keep = rec('ops');
    env.advance(20 * DAY);
    const recent = rec('ops');
    env.advance(11 * DAY);
    gw.state.prune();
    expect(gw.state.changesSince('global', 0, { agentId: 'main' }).historyGap).toBe(true);
    const ops = gw.state.changesSince('global', 0, { agentId: 'ops' });
    expect(ops.events.map((e) => e.sequence)).toEqual([recent]);
    expect(ops.historyGap).toBe(true);
    expect(gw.state.changesSince('global', keep, { agentId: 'ops' }).historyGap).toBe(false);
    // a fresh agent on the same bare key has no gap
    rec('dev');
    expect(gw.state.changesSince('global', 0, { agentId: 'dev' }).historyGap).toBe(false);
  });

  it('heads are monotonic after pruning everything; sequences never reused', () => {
    let gw = env.gw;
    humanEvent(gw, PEER);
    const last = humanEvent(gw, PEER).sequence;
    env.advance(31 * DAY);
    gw.state.prune();
    expect(gw.state.version(PEER)).toBe(last);
    const ch = gw.state.changesSince(PEER, 0);
    expect(ch.events).toEqual([]);
    expect(ch.historyGap).toBe(true);
    expect(ch.stateVersion).toBe(last);
    expect(gw.state.changesSince(PEER, last).historyGap).toBe(false);
    gw = env.restart();
    expect(gw.state.version(PEER)).toBe(last);
    expect(humanEvent(gw, PEER).sequence).toBeGreaterThan(last);
  });

  it('the start-up sweep prunes', () => {
    let gw = env.gw;
    humanEvent(gw, PEER);
    env.advance(31 * DAY);
    gw = env.restart();
    expect(gw.state.changesSince(PEER, 0).events).toEqual([]);
    expect(gw.state.changesSince(PEER, 0).historyGap).toBe(true);
  });

  it('cursors untouched for 30 days expire; touched ones stay', () => {
    const { gw } = env;
    const A = 'agent:main:a';
    ensureSession(gw, A);
    gw.state.registerWatch(MAIN, PEER);
    gw.state.registerWatch(MAIN, A);
    env.advance(20 * DAY);
    humanEvent(gw, A); // touches MAIN's cursor on A
    env.advance(11 * DAY);
    gw.state.prune();
    expect(gw.state.cursor(MAIN, PEER)).toBeUndefined();
    expect(gw.state.cursor(MAIN, A)).toBeDefined();
  });

  it(
    'row cap: the oldest rows beyond 50,000 are removed, with historyGap for the affected session only',
    { timeout: 60_000 },
    () => {
      const { gw } = env;
      const OLD = 'agent:main:old';
      const BULK = 'agent:main:bulk';
      ensureSession(gw, OLD);
      ensureSession(gw, BULK);
      const oldSeqs: number[] = [];
      for (let i = 0; i < 10; i++)
        oldSeqs.push(logEvent(gw, OLD, 'compacted', 'session compacted')!.sequence);
      const bulkFirst = logEvent(gw, BULK, 'compacted', 'session compacted')!.sequence;
      for (let i = 1; i < 49_995; i++) logEvent(gw, BULK, 'compacted', 'session compacted');
      // 50,005 rows in total; the start-up sweep pruned at T0, so no automatic prune within the hour
      expect(gw.state.changesSince(OLD, 0).events).toHaveLength(10);
      expect(gw.state.changesSince(OLD, 0).historyGap).toBe(false);
      env.advance(2 * 60 * 60 * 1000);
      logEvent(gw, BULK, 'compacted', 'session compacted'); // 50,006 rows; an append after an hour prunes
      const old6 = gw.state.changesSince(OLD, 0);
      expect(old6.events.map((e) => e.sequence)).toEqual(oldSeqs.slice(6));
      expect(old6.historyGap).toBe(true);
      expect(gw.state.changesSince(OLD, oldSeqs[5]!).historyGap).toBe(false);
      // 50,000 rows now: a forced prune removes nothing more
      gw.state.prune();
      const old = gw.state.changesSince(OLD, 0);
      expect(old.events.map((e) => e.sequence)).toEqual(oldSeqs.slice(6));
      expect(old.historyGap).toBe(true);
      expect(gw.state.changesSince(OLD, oldSeqs[5]!).historyGap).toBe(false);
      expect(gw.state.version(OLD)).toBe(oldSeqs[9]);
      const bulk = gw.state.changesSince(BULK, 0);
      expect(bulk.historyGap).toBe(false);
      expect(bulk.earliestAvailableSequence).toBe(bulkFirst);
    },
  );
});

describe('reset and delete clean-up', () => {
  it('reset removes all cursors held by the session, not cursors on it', () => {
    const { gw } = env;
    const A = 'agent:main:a';
    ensureSession(gw, A);
    gw.state.registerWatch(MAIN, PEER);
    gw.state.registerWatch(MAIN, A);
    gw.state.registerWatch(PEER, MAIN);
    gw.sessions.reset(MAIN);
    expect(gw.state.cursor(MAIN, PEER)).toBeUndefined();
    expect(gw.state.cursor(MAIN, A)).toBeUndefined();
    expect(gw.state.cursor(PEER, MAIN)).toBeDefined();
    expect(gw.sessions.get(MAIN)).toBeDefined();
  });

  it('delete removes cursors where either side is the deleted session', async () => {
    const { gw } = env;
    const A = 'agent:main:a';
    ensureSession(gw, A);
    gw.state.registerWatch(MAIN, PEER);
    gw.state.registerWatch(PEER, A);
    gw.state.registerWatch(MAIN, A);
    gw.sessions.delete(PEER);
    expect(gw.state.cursor(MAIN, PEER)).toBeUndefined();
    expect(gw.state.cursor(PEER, A)).toBeUndefined();
    expect(gw.state.cursor(MAIN, A)).toBeDefined();
    expect(gw.sessions.get(PEER)).toBeUndefined();
    const r = await gw.tools.call(MAIN, 'session_status', { sessionKey: PEER });
    expect(r).toEqual({ ok: false, error: `Unknown sessionKey: ${PEER}` });
  });

  it('draining a notice whose cursor was removed (reset watcher / deleted target) recreates nothing', () => {
    const { gw } = env;
    const A = 'agent:main:a';
    ensureSession(gw, A);
    gw.state.registerWatch(MAIN, PEER);
    gw.state.registerWatch(A, PEER);
    humanEvent(gw, PEER);
    expect(stateEntries(gw, MAIN)).toHaveLength(1);
    gw.sessions.reset(MAIN);
    expect(() => gw.notices.drain(MAIN)).not.toThrow();
    expect(gw.state.cursor(MAIN, PEER)).toBeUndefined();
    expect(stateEntries(gw, A)).toHaveLength(1);
    gw.sessions.delete(PEER);
    expect(() => gw.notices.drain(A)).not.toThrow();
    expect(gw.state.cursor(A, PEER)).toBeUndefined();
    expect(gw.notices.peek(A)).toHaveLength(0);
  });

  it('sequences are never reused after a session holding the highest sequence is deleted', () => {
    let gw = env.gw;
    const X = 'agent:main:x';
    ensureSession(gw, X);
    humanEvent(gw, PEER);
    const top = humanEvent(gw, X).sequence;
    gw.sessions.delete(X);
    gw = env.restart();
    expect(humanEvent(gw, PEER).sequence).toBeGreaterThan(top);
  });
});
