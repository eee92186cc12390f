import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DAY, MAIN, T0, ensureSession, humanEvent, logEvent, openEnv, type Env } from './harness';

let env: Env;
beforeEach(() => {
  env = openEnv();
  ensureSession(env.gw, MAIN);
});
afterEach(() => env.close());

describe('signal log', () => {
  it('sequences strictly increase across the database; version is the head; 0 without events', () => {
    const { gw } = env;
    ensureSession(gw, 'agent:main:a');
    ensureSession(gw, 'agent:main:b');
    expect(gw.state.version('agent:main:a')).toBe(0);
    const e1 = humanEvent(gw, 'agent:main:a');
    const e2 = humanEvent(gw, 'agent:main:b');
    const e3 = logEvent(gw, 'agent:main:a', 'compacted', 'session compacted')!;
    expect(e2.sequence).toBeGreaterThan(e1.sequence);
    expect(e3.sequence).toBeGreaterThan(e2.sequence);
    expect(gw.state.version('agent:main:a')).toBe(e3.sequence);
    expect(gw.state.version('agent:main:b')).toBe(e2.sequence);
    expect(e1).toMatchObject({
      kind: 'human_direct_message',
      actorType: 'human',
      summary: 'human message via desktop',
      occurredAt: T0,
    });
  });

  it('clamps occurredAt to [now - 24h, now]; absent -> now', () => {
    const { gw } = env;
    ensureSession(gw, 'agent:main:a');
    const future = humanEvent(gw, 'agent:main:a', { occurredAt: T0 + 5 * DAY });
    const old = humanEvent(gw, 'agent:main:a', { occurredAt: T0 - 3 * DAY });
    const inside = humanEvent(gw, 'agent:main:a', { occurredAt: T0 - 1000 });
    const absent = humanEvent(gw, 'agent:main:a');
    expect(future.occurredAt).toBe(T0);
    expect(old.occurredAt).toBe(T0 - DAY);
    expect(inside.occurredAt).toBe(T0 - 1000);
    expect(absent.occurredAt).toBe(T0);
  });

  it('dedupe: an existing dedupe key returns the existing event and changes nothing', () => {
    const { gw } = env;
    ensureSession(gw, 'agent:main:a');
    gw.state.registerWatch(MAIN, 'agent:main:a');
    const first = humanEvent(gw, 'agent:main:a', { dedupeKey: 'dk-1' });
    gw.notices.drain(MAIN);
    const cur = gw.state.cursor(MAIN, 'agent:main:a');
    env.advance(1000);
    const again = humanEvent(gw, 'agent:main:a', { dedupeKey: 'dk-1', summary: 'human message via claude' });
    expect(again.sequence).toBe(first.sequence);
    expect(again.summary).toBe('human message via desktop');
    expect(gw.state.version('agent:main:a')).toBe(first.sequence);
    expect(gw.state.changesSince('agent:main:a', 0).events).toHaveLength(1);
    expect(gw.state.cursor(MAIN, 'agent:main:a')).toEqual(cur);
    expect(gw.notices.peek(MAIN)).toHaveLength(0);
  });

  it('changesSince: oldest first, limit clamped to 1..200, truncated, version beyond head', () => {
    const { gw } = env;
    ensureSession(gw, 'agent:main:a');
    const seqs: number[] = [];
    for (let i = 0; i < 205; i++)
      seqs.push(logEvent(gw, 'agent:main:a', 'compacted', 'session compacted')!.sequence);
    const all = gw.state.changesSince('agent:main:a', 0);
    expect(all.events).toHaveLength(200);
    expect(all.events.map((e) => e.sequence)).toEqual(seqs.slice(0, 200));
    expect(all.truncated).toBe(true);
    expect(all.historyGap).toBe(false);
    expect(all.stateVersion).toBe(seqs[204]);
    expect(all.earliestAvailableSequence).toBe(seqs[0]);
    expect(gw.state.changesSince('agent:main:a', 0, { limit: 1000 }).events).toHaveLength(200);
    expect(gw.state.changesSince('agent:main:a', 0, { limit: 0 }).events).toHaveLength(1);
    const three = gw.state.changesSince('agent:main:a', 0, { limit: 3 });
    expect(three.events).toHaveLength(3);
    expect(three.truncated).toBe(true);
    const tail = gw.state.changesSince('agent:main:a', seqs[199]!);
    expect(tail.events.map((e) => e.sequence)).toEqual(seqs.slice(200));
    expect(tail.truncated).toBe(false);
    const beyond = gw.state.changesSince('agent:main:a', seqs[204]! + 100);
    expect(beyond.events).toEqual([]);
    expect(beyond.historyGap).toBe(false);
  });

  it('bare "global" key: log and changesSince scoped by agent id, never watchers', () => {
    const { gw } = env;
    const a = gw.state.record({
      sessionKey: 'global',
      agentId: 'main',
      kind: 'goal_changed',
      actorType: 'human',
      summary: 'goal created',
    });
    const b = gw.state.record({
      sessionKey: 'global',
      agentId: 'ops',
      kind: 'goal_changed',
      actorType: 'human',
      summary: 'goal created',
    });
    const c = gw.state.record({
      sessionKey: 'global',
      agentId: 'ops',
      kind: 'goal_changed',
      actorType: 'human',
      summary: 'goal cleared',
    });
    expect(a && b && c).toBeTruthy();
    expect(gw.state.version('global', 'main')).toBe(a!.sequence);
    expect(gw.state.version('global', 'ops')).toBe(c!.sequence);
    expect(gw.state.changesSince('global', 0, { agentId: 'main' }).events.map((e) => e.sequence)).toEqual([
      a!.sequence,
    ]);
    expect(gw.state.changesSince('global', 0, { agentId: 'ops' }).events.map((e) => e.sequence)).toEqual([
      b!.sequence,
      c!.sequence,
    ]);
    // never holds or receives cursors
    expect(gw.state.registerWatch(MAIN, 'global', { targetAgentId: 'main' })).toBe(false);
    expect(gw.state.registerWatch('global', MAIN)).toBe(false);
    expect(gw.state.cursor(MAIN, 'global')).toBeUndefined();
    expect(gw.state.cursor('global', MAIN)).toBeUndefined();
    // producer-passed bare watcher is dropped; no notices
    gw.state.record({
      sessionKey: 'global',
      agentId: 'main',
      kind: 'goal_changed',
      actorType: 'human',
      summary: 'goal cleared',
      watchers: ['global'],
    });
    expect(gw.notices.peek('global')).toHaveLength(0);
  });

  it('agent id in a key is case-insensitive on input (stored lower-case)', () => {
    const { gw } = env;
    ensureSession(gw, 'agent:main:a');
    const ev = humanEvent(gw, 'agent:MAIN:a');
    expect(gw.state.version('agent:main:a')).toBe(ev.sequence);
  });

  it('summaries never carry message content (human.send)', async () => {
    const { gw } = env;
    ensureSession(gw, 'agent:main:peer');
    expect(gw.state.registerWatch(MAIN, 'agent:main:peer')).toBe(true);
    await gw.human.send('agent:main:peer', 'TOP-SECRET-PAYLOAD-4711');
    const ch = gw.state.changesSince('agent:main:peer', 0);
    expect(ch.events.map((e) => e.summary)).toEqual(['human message via desktop']);
    expect(JSON.stringify(ch)).not.toContain('TOP-SECRET');
  });

  it('human.send on an unwatched session without parent writes nothing', async () => {
    const { gw } = env;
    ensureSession(gw, 'agent:main:lonely');
    await gw.human.send('agent:main:lonely', 'hello');
    expect(gw.state.version('agent:main:lonely')).toBe(0);
  });

  it('human.send channels: default desktop, named channel, explicit empty -> unknown', async () => {
    const { gw } = env;
    ensureSession(gw, 'agent:main:peer');
    gw.state.registerWatch(MAIN, 'agent:main:peer');
    await gw.human.send('agent:main:peer', 'one');
    await gw.human.send('agent:main:peer', 'two', { channel: 'claude' });
    await gw.human.send('agent:main:peer', 'three', { channel: '' });
    const ev = gw.state
      .changesSince('agent:main:peer', 0)
      .events.filter((e) => e.kind === 'human_direct_message');
    expect(ev.map((e) => e.summary)).toEqual([
      'human message via desktop',
      'human message via claude',
      'human message via unknown',
    ]);
    expect(ev.every((e) => e.actorType === 'human')).toBe(true);
  });

  it('human.send on a spawned child (has a parent) records even without watchers', async () => {
    const { gw } = env;
    ensureSession(gw, 'agent:main:subagent:kid', MAIN);
    await gw.human.send('agent:main:subagent:kid', 'hi');
    const ev = gw.state
      .changesSince('agent:main:subagent:kid', 0)
      .events.filter((e) => e.kind === 'human_direct_message');
    expect(ev).toHaveLength(1);
  });

  it('truncated is exact at the limit boundary', () => {
    const { gw } = env;
    ensureSession(gw, 'agent:main:a');
    for (let i = 0; i < 200; i++) logEvent(gw, 'agent:main:a', 'compacted', 'session compacted');
    expect(gw.state.changesSince('agent:main:a', 0).truncated).toBe(false);
    expect(gw.state.changesSince('agent:main:a', 197, { limit: 3 }).truncated).toBe(false);
    logEvent(gw, 'agent:main:a', 'compacted', 'session compacted');
    expect(gw.state.changesSince('agent:main:a', 0).truncated).toBe(true);
  });

  it('dedupe keys are unique database-wide; a dedupe hit seeds no cursor', () => {
    const { gw } = env;
    ensureSession(gw, 'agent:main:a');
    ensureSession(gw, 'agent:main:subagent:b', MAIN);
    const first = humanEvent(gw, 'agent:main:a', { dedupeKey: 'shared' });
    const hit = gw.state.record({
      sessionKey: 'agent:main:subagent:b',
      kind: 'child_spawned',
      actorType: 'agent',
      actorId: MAIN,
      summary: 'child session spawned',
      watchers: [MAIN],
      dedupeKey: 'shared',
    });
    expect(hit?.sequence).toBe(first.sequence);
    expect(gw.state.version('agent:main:subagent:b')).toBe(0);
    expect(gw.state.cursor(MAIN, 'agent:main:subagent:b')).toBeUndefined();
  });

  it('context key is the lower-case hex of the UTF-8 target key (non-ASCII)', () => {
    const { gw } = env;
    const T = 'agent:main:adopted:claude:thr\u00e9ad-\u6f22';
    ensureSession(gw, T);
    gw.state.registerWatch(MAIN, T);
    humanEvent(gw, T);
    const q = gw.notices.peek(MAIN);
    expect(q).toHaveLength(1);
    expect(q[0]!.contextKey).toBe('session-state:' + Buffer.from(T, 'utf8').toString('hex'));
    expect(q[0]!.contextKey).toMatch(/^session-state:[0-9a-f]+$/);
  });
});
