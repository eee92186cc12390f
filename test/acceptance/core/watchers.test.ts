import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MAIN,
  contextKeyFor,
  ensureSession,
  humanEvent,
  logEvent,
  noticeText,
  openEnv,
  stateEntries,
  type Env,
} from './harness';

const PEER = 'agent:main:peer';
const OTHER = 'agent:main:other';
let env: Env;
beforeEach(() => {
  env = openEnv();
  ensureSession(env.gw, MAIN);
  ensureSession(env.gw, PEER);
  ensureSession(env.gw, OTHER);
});
afterEach(() => env.close());

describe('watchers and notices', () => {
  it('registration starts at the current version; earlier history never notifies', () => {
    const { gw } = env;
    humanEvent(gw, PEER);
    const v = humanEvent(gw, PEER).sequence;
    expect(gw.state.registerWatch(MAIN, PEER)).toBe(true);
    const c = gw.state.cursor(MAIN, PEER)!;
    expect(c.lastSeen).toBe(v);
    expect(c.notified).toBe(v);
    expect(c.material).toBeLessThanOrEqual(v);
    expect(gw.notices.peek(MAIN)).toHaveLength(0);
  });

  it('re-registration never clobbers a pending cursor', () => {
    const { gw } = env;
    gw.state.registerWatch(MAIN, PEER);
    const L = gw.state.cursor(MAIN, PEER)!.lastSeen;
    humanEvent(gw, PEER);
    humanEvent(gw, PEER);
    const before = gw.state.cursor(MAIN, PEER);
    const q = gw.notices.peek(MAIN);
    gw.state.registerWatch(MAIN, PEER);
    expect(gw.state.cursor(MAIN, PEER)).toEqual(before);
    expect(gw.notices.peek(MAIN)).toEqual(q);
    expect(before!.lastSeen).toBe(L);
  });

  it('bare watcher or bare target: false and nothing written', () => {
    const { gw } = env;
    expect(gw.state.registerWatch('global', PEER)).toBe(false);
    expect(gw.state.registerWatch(MAIN, 'global', { targetAgentId: 'main' })).toBe(false);
    expect(gw.state.cursor('global', PEER)).toBeUndefined();
    humanEvent(gw, PEER);
    expect(gw.notices.peek('global')).toHaveLength(0);
  });

  it('twenty rapid changes -> one queued line, byte-exact text and context key; frozen watermark', () => {
    const { gw } = env;
    humanEvent(gw, PEER);
    gw.state.registerWatch(MAIN, PEER);
    const L = gw.state.version(PEER);
    const seqs: number[] = [];
    for (let i = 0; i < 20; i++) {
      seqs.push(humanEvent(gw, PEER).sequence);
      env.advance(10);
      const q = gw.notices.peek(MAIN);
      expect(q).toHaveLength(1);
      expect(q[0]).toEqual({ text: noticeText(PEER, L), contextKey: contextKeyFor(PEER) });
    }
    expect(gw.state.cursor(MAIN, PEER)).toEqual({ lastSeen: L, notified: seqs[0], material: seqs[19] });
    expect(gw.notices.peek(MAIN)[0]!.text).toBe(
      `Session "agent:main:peer" changed (other actor). Reconcile before acting: session_status sessionKey "agent:main:peer" changesSince ${L}.`,
    );
  });

  it('acknowledge on drain; interleaved work reopens exactly once naming the old N', () => {
    const { gw } = env;
    gw.state.registerWatch(MAIN, PEER);
    const L0 = gw.state.cursor(MAIN, PEER)!.lastSeen;
    const s1 = humanEvent(gw, PEER).sequence;
    const s2 = humanEvent(gw, PEER).sequence;
    const s3 = humanEvent(gw, PEER).sequence;
    const drained = gw.notices.drain(MAIN);
    expect(drained.map((e) => e.text)).toEqual([noticeText(PEER, L0)]);
    expect(gw.state.cursor(MAIN, PEER)).toEqual({ lastSeen: s1, notified: s3, material: s3 });
    expect(gw.notices.peek(MAIN)).toEqual([{ text: noticeText(PEER, s1), contextKey: contextKeyFor(PEER) }]);
    expect(s2).toBeGreaterThan(s1);
    // second drain acknowledges fully, no third notice
    gw.notices.drain(MAIN);
    expect(gw.state.cursor(MAIN, PEER)).toEqual({ lastSeen: s3, notified: s3, material: s3 });
    expect(gw.notices.peek(MAIN)).toHaveLength(0);
  });

  it('a single change, drained, does not reopen', () => {
    const { gw } = env;
    gw.state.registerWatch(MAIN, PEER);
    const s1 = humanEvent(gw, PEER).sequence;
    expect(gw.notices.drain(MAIN)).toHaveLength(1);
    expect(gw.state.cursor(MAIN, PEER)).toEqual({ lastSeen: s1, notified: s1, material: s1 });
    expect(gw.notices.peek(MAIN)).toHaveLength(0);
  });

  it('log-only kinds never notify and never reopen', () => {
    const { gw } = env;
    gw.state.registerWatch(MAIN, PEER);
    const L0 = gw.state.cursor(MAIN, PEER)!.lastSeen;
    logEvent(gw, PEER, 'run_completed', 'child run completed');
    logEvent(gw, PEER, 'run_failed', 'child run failed', { payload: { outcome: 'error' } });
    logEvent(gw, PEER, 'compacted', 'session compacted');
    logEvent(gw, PEER, 'adopted', 'adopted from claude', { payload: { catalogId: 'claude', hostId: 'h' } });
    expect(gw.notices.peek(MAIN)).toHaveLength(0);
    expect(gw.state.cursor(MAIN, PEER)!.lastSeen).toBe(L0);
    expect(gw.state.cursor(MAIN, PEER)!.material).toBeLessThanOrEqual(L0);
    const s1 = humanEvent(gw, PEER).sequence;
    logEvent(gw, PEER, 'compacted', 'session compacted');
    logEvent(gw, PEER, 'run_completed', 'child run completed');
    gw.notices.drain(MAIN);
    expect(gw.state.cursor(MAIN, PEER)).toEqual({ lastSeen: s1, notified: s1, material: s1 });
    expect(gw.notices.peek(MAIN)).toHaveLength(0);
  });

  it('upstream_missing and goal_changed are notify-eligible', () => {
    const { gw } = env;
    gw.state.registerWatch(MAIN, PEER);
    const L0 = gw.state.cursor(MAIN, PEER)!.lastSeen;
    gw.state.record({
      sessionKey: PEER,
      kind: 'upstream_missing',
      actorType: 'system',
      summary: 'upstream missing via claude',
      payload: { channel: 'claude' },
    });
    expect(stateEntries(gw, MAIN).map((e) => e.text)).toEqual([noticeText(PEER, L0)]);
    gw.notices.drain(MAIN);
    const L1 = gw.state.cursor(MAIN, PEER)!.lastSeen;
    gw.state.record({
      sessionKey: PEER,
      kind: 'goal_changed',
      actorType: 'agent',
      actorId: OTHER,
      summary: 'goal created',
    });
    expect(stateEntries(gw, MAIN).map((e) => e.text)).toEqual([noticeText(PEER, L1)]);
  });

  it('self-suppression: a watcher is never notified about what it caused', () => {
    const { gw } = env;
    gw.state.registerWatch(MAIN, PEER);
    gw.state.registerWatch(OTHER, PEER);
    const L = gw.state.cursor(MAIN, PEER)!;
    const ev = gw.state.record({
      sessionKey: PEER,
      kind: 'goal_changed',
      actorType: 'agent',
      actorId: MAIN,
      summary: 'goal created',
    })!;
    expect(gw.notices.peek(MAIN)).toHaveLength(0);
    expect(gw.state.cursor(MAIN, PEER)).toEqual(L);
    expect(gw.notices.peek(OTHER).map((e) => e.text)).toEqual([noticeText(PEER, L.lastSeen)]);
    expect(gw.state.cursor(OTHER, PEER)!.material).toBe(ev.sequence);
  });

  it('child_spawned seeds the producer-passed watcher at that sequence; re-spawn re-seeds', () => {
    const { gw } = env;
    const KID = 'agent:main:subagent:kid';
    ensureSession(gw, KID, MAIN);
    const sp = gw.state.record({
      sessionKey: KID,
      kind: 'child_spawned',
      actorType: 'agent',
      actorId: MAIN,
      summary: 'child session spawned',
      watchers: [MAIN],
    })!;
    expect(gw.state.cursor(MAIN, KID)).toEqual({
      lastSeen: sp.sequence,
      notified: sp.sequence,
      material: sp.sequence,
    });
    expect(gw.notices.peek(MAIN)).toHaveLength(0);
    humanEvent(gw, KID);
    expect(stateEntries(gw, MAIN).map((e) => e.text)).toEqual([noticeText(KID, sp.sequence)]);
    const sp2 = gw.state.record({
      sessionKey: KID,
      kind: 'child_spawned',
      actorType: 'agent',
      actorId: MAIN,
      summary: 'child session spawned',
      watchers: [MAIN],
    })!;
    expect(gw.state.cursor(MAIN, KID)).toEqual({
      lastSeen: sp2.sequence,
      notified: sp2.sequence,
      material: sp2.sequence,
    });
  });

  it('producer-passed watchers receive notify-eligible events (parent as producer watcher)', () => {
    const { gw } = env;
    const KID = 'agent:main:subagent:kid2';
    ensureSession(gw, KID, MAIN);
    const sp = gw.state.record({
      sessionKey: KID,
      kind: 'child_spawned',
      actorType: 'agent',
      actorId: MAIN,
      summary: 'child session spawned',
      watchers: [MAIN],
    })!;
    gw.state.record({
      sessionKey: KID,
      kind: 'goal_changed',
      actorType: 'agent',
      actorId: KID,
      summary: 'goal created',
      watchers: [MAIN],
    });
    expect(stateEntries(gw, MAIN).map((e) => e.text)).toEqual([noticeText(KID, sp.sequence)]);
  });

  it('queue holds at most 20 entries (oldest dropped); duplicates (same text + context key) dropped', () => {
    const { gw } = env;
    expect(gw.notices.enqueue(MAIN, { text: 'x', contextKey: 'k' })).toBe(true);
    expect(gw.notices.enqueue(MAIN, { text: 'x', contextKey: 'k' })).toBe(false);
    expect(gw.notices.enqueue(MAIN, { text: 'x', contextKey: 'k2' })).toBe(true);
    for (let i = 0; i < 25; i++) gw.notices.enqueue(MAIN, { text: `e${i}` });
    const q = gw.notices.peek(MAIN);
    expect(q).toHaveLength(20);
    expect(q[0]!.text).toBe('e5');
    expect(q[19]!.text).toBe('e24');
  });

  it('draining unrelated entries acknowledges nothing; a missed notice heals on the next material event', () => {
    const { gw } = env;
    gw.state.registerWatch(MAIN, PEER);
    const L0 = gw.state.cursor(MAIN, PEER)!.lastSeen;
    const s1 = humanEvent(gw, PEER).sequence;
    for (let i = 0; i < 20; i++) gw.notices.enqueue(MAIN, { text: `noise ${i}`, contextKey: `noise` });
    expect(stateEntries(gw, MAIN)).toHaveLength(0); // notice was the oldest: dropped
    gw.notices.drain(MAIN);
    expect(gw.state.cursor(MAIN, PEER)).toEqual({ lastSeen: L0, notified: s1, material: s1 });
    const s2 = humanEvent(gw, PEER).sequence;
    expect(gw.notices.peek(MAIN)).toEqual([{ text: noticeText(PEER, L0), contextKey: contextKeyFor(PEER) }]);
    expect(gw.state.cursor(MAIN, PEER)).toEqual({ lastSeen: L0, notified: s1, material: s2 });
  });

  it('acknowledge() acknowledges like a drained entry', () => {
    const { gw } = env;
    gw.state.registerWatch(MAIN, PEER);
    const s1 = humanEvent(gw, PEER).sequence;
    gw.state.acknowledge(MAIN, [PEER]);
    expect(gw.state.cursor(MAIN, PEER)).toEqual({ lastSeen: s1, notified: s1, material: s1 });
  });

  it('notices are per watcher/target pair', () => {
    const { gw } = env;
    gw.state.registerWatch(MAIN, PEER);
    gw.state.registerWatch(MAIN, OTHER);
    const lp = gw.state.cursor(MAIN, PEER)!.lastSeen;
    const lo = gw.state.cursor(MAIN, OTHER)!.lastSeen;
    humanEvent(gw, PEER);
    humanEvent(gw, OTHER);
    humanEvent(gw, PEER);
    expect(gw.notices.peek(MAIN)).toEqual([
      { text: noticeText(PEER, lp), contextKey: contextKeyFor(PEER) },
      { text: noticeText(OTHER, lo), contextKey: contextKeyFor(OTHER) },
    ]);
  });
});
