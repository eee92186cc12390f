// Reconciliation through the agent tools (spec: "Reconciling"; gateway contract: tools.call):
// session_status with changesSince, exact errors, the 200 limit, payload filtering, and
// sessions_list's stateVersion.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolResult } from '../../electron/gateway/types';
import { DAY, humanTurn, openHarness, T0, type Harness } from './helpers';
import { MAIN } from '../helpers/spec';

const CHILD = 'agent:main:subagent:child';
const LEAD = 'agent:main:subagent:lead';

let h: Harness;
beforeEach(() => {
  h = openHarness();
  h.gw.sessions.create({ key: MAIN });
  h.gw.sessions.create({ key: CHILD, parentKey: MAIN });
});
afterEach(() => {
  h.dispose();
});

function details(r: ToolResult): Record<string, unknown> {
  if (!r.ok) throw new Error(`tool failed: ${r.error}`);
  return r.details as Record<string, unknown>;
}

describe('session_status', () => {
  it('returns the spec shape for changesSince, oldest first, advancing no cursor', async () => {
    const { gw, clock } = h;
    // A sub-agent watcher: no heartbeat wake, so no turn can drain and acknowledge meanwhile.
    gw.state.registerWatch(LEAD, CHILD);
    gw.state.record(humanTurn(CHILD)); // 1
    clock.advance(100_000);
    gw.state.record({
      sessionKey: CHILD,
      kind: 'goal_changed',
      actorType: 'human',
      summary: 'goal objective changed',
    }); // 2
    const before = gw.state.cursor(LEAD, CHILD);
    expect(before).toEqual({ lastSeen: 0, notified: 1, material: 2 });
    const r = await gw.tools.call(MAIN, 'session_status', { sessionKey: CHILD, changesSince: 0 });
    const d = details(r);
    expect(d.stateVersion).toBe(2);
    expect(d.stateChanges).toEqual({
      events: [
        {
          sequence: 1,
          kind: 'human_direct_message',
          actorType: 'human',
          actorId: 'person:ada',
          occurredAt: T0,
          summary: 'human message via desktop',
          payload: { channel: 'desktop' },
        },
        {
          sequence: 2,
          kind: 'goal_changed',
          actorType: 'human',
          occurredAt: T0 + 100_000,
          summary: 'goal objective changed',
        },
      ],
      truncated: false,
      earliestAvailableSequence: 1,
      historyGap: false,
    });
    expect(r.ok && JSON.parse(r.text)).toEqual(d);
    expect(gw.state.cursor(LEAD, CHILD)).toEqual(before);
    // After a version: only what follows it.
    const d1 = details(await gw.tools.call(MAIN, 'session_status', { sessionKey: CHILD, changesSince: 1 }));
    expect((d1.stateChanges as { events: { sequence: number }[] }).events.map((e) => e.sequence)).toEqual([
      2,
    ]);
    // Beyond the head: nothing, no gap.
    const d9 = details(await gw.tools.call(MAIN, 'session_status', { sessionKey: CHILD, changesSince: 9 }));
    expect(d9.stateChanges).toEqual({
      events: [],
      truncated: false,
      earliestAvailableSequence: 1,
      historyGap: false,
    });
  });

  it('always reports stateVersion; stateChanges only with changesSince', async () => {
    const { gw } = h;
    const d0 = details(await gw.tools.call(MAIN, 'session_status', { sessionKey: CHILD }));
    expect(d0.stateVersion).toBe(0);
    expect(d0).not.toHaveProperty('stateChanges');
    gw.state.record(humanTurn(CHILD));
    const d1 = details(await gw.tools.call(MAIN, 'session_status', { sessionKey: CHILD }));
    expect(d1.stateVersion).toBe(1);
    expect(d1).not.toHaveProperty('stateChanges');
  });

  it.each([
    ['-1', -1],
    ['1.5', 1.5],
    ["'3'", '3'],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['null', null],
    ['true', true],
  ])('rejects changesSince %s with the exact message', async (_label, value) => {
    const r = await h.gw.tools.call(MAIN, 'session_status', { sessionKey: CHILD, changesSince: value });
    expect(r).toEqual({ ok: false, error: 'changesSince must be a non-negative integer' });
  });

  it('the same rule applies to state.changesSince', () => {
    for (const v of [-1, 1.5, '3', Number.NaN]) {
      expect(() => h.gw.state.changesSince(CHILD, v as number)).toThrow(
        new Error('changesSince must be a non-negative integer'),
      );
    }
  });

  it('fails for an unknown session with the exact message', async () => {
    const r = await h.gw.tools.call(MAIN, 'session_status', {
      sessionKey: 'agent:main:subagent:nope',
      changesSince: 0,
    });
    expect(r).toEqual({ ok: false, error: 'Unknown sessionKey: agent:main:subagent:nope' });
    const r2 = await h.gw.tools.call(MAIN, 'session_status', { sessionKey: 'agent:main:subagent:nope' });
    expect(r2).toEqual({ ok: false, error: 'Unknown sessionKey: agent:main:subagent:nope' });
  });

  it('returns at most 200 events with truncated, and honours a smaller limit', async () => {
    const { gw } = h;
    for (let i = 0; i < 200; i++) gw.state.record(humanTurn(CHILD));
    type Changes = { events: { sequence: number }[]; truncated: boolean };
    const at200 = details(await gw.tools.call(MAIN, 'session_status', { sessionKey: CHILD, changesSince: 0 }))
      .stateChanges as Changes;
    expect(at200.events).toHaveLength(200);
    expect(at200.truncated).toBe(false);
    gw.state.record(humanTurn(CHILD)); // 201
    const full = details(await gw.tools.call(MAIN, 'session_status', { sessionKey: CHILD, changesSince: 0 }));
    const c = full.stateChanges as Changes;
    expect(full.stateVersion).toBe(201);
    expect(c.events).toHaveLength(200);
    expect(c.events[0]!.sequence).toBe(1);
    expect(c.events[199]!.sequence).toBe(200);
    expect(c.truncated).toBe(true);
    const rest = details(
      await gw.tools.call(MAIN, 'session_status', { sessionKey: CHILD, changesSince: 200 }),
    ).stateChanges as Changes;
    expect(rest.events.map((e) => e.sequence)).toEqual([201]);
    expect(rest.truncated).toBe(false);
    const small = details(
      await gw.tools.call(MAIN, 'session_status', { sessionKey: CHILD, changesSince: 195, limit: 3 }),
    ).stateChanges as Changes;
    expect(small.events.map((e) => e.sequence)).toEqual([196, 197, 198]);
    expect(small.truncated).toBe(true);
    // The core clamps the limit to 1..200.
    expect(gw.state.changesSince(CHILD, 0, { limit: 0 }).events.map((e) => e.sequence)).toEqual([1]);
    expect(gw.state.changesSince(CHILD, 0, { limit: 500 }).events).toHaveLength(200);
  });

  it('clamps a requested limit to 1..200 instead of failing (spec: "the requested limit, clamped to 1..200")', async () => {
    const { gw } = h;
    for (let i = 0; i < 205; i++) gw.state.record(humanTurn(CHILD));
    type Changes = { events: { sequence: number }[]; truncated: boolean };
    const big = await gw.tools.call(MAIN, 'session_status', {
      sessionKey: CHILD,
      changesSince: 0,
      limit: 500,
    });
    const c = details(big).stateChanges as Changes;
    expect(c.events).toHaveLength(200);
    expect(c.truncated).toBe(true);
    const zero = await gw.tools.call(MAIN, 'session_status', {
      sessionKey: CHILD,
      changesSince: 0,
      limit: 0,
    });
    const z = details(zero).stateChanges as Changes;
    expect(z.events.map((e) => e.sequence)).toEqual([1]);
    expect(z.truncated).toBe(true);
  });

  it('filters payloads to outcome, channel and turns', async () => {
    const { gw } = h;
    gw.state.record({
      sessionKey: CHILD,
      kind: 'run_failed',
      actorType: 'agent',
      runId: 'r1',
      summary: 'child run failed',
      payload: { outcome: 'error', stack: 'secret', turns: 3 },
    });
    gw.state.record({
      sessionKey: CHILD,
      kind: 'adopted',
      actorType: 'human',
      summary: 'adopted from claude',
      payload: { catalogId: 'claude', hostId: 'h1' },
    });
    gw.state.record({
      sessionKey: CHILD,
      kind: 'upstream_missing',
      actorType: 'system',
      summary: 'upstream missing via codex',
      payload: { channel: 'codex', path: '/home/x' },
    });
    const d = details(await gw.tools.call(MAIN, 'session_status', { sessionKey: CHILD, changesSince: 0 }));
    expect((d.stateChanges as { events: unknown[] }).events).toEqual([
      {
        sequence: 1,
        kind: 'run_failed',
        actorType: 'agent',
        runId: 'r1',
        occurredAt: T0,
        summary: 'child run failed',
        payload: { outcome: 'error', turns: 3 },
      },
      { sequence: 2, kind: 'adopted', actorType: 'human', occurredAt: T0, summary: 'adopted from claude' },
      {
        sequence: 3,
        kind: 'upstream_missing',
        actorType: 'system',
        occurredAt: T0,
        summary: 'upstream missing via codex',
        payload: { channel: 'codex' },
      },
    ]);
  });

  it('reports earliestAvailableSequence and historyGap after pruning', async () => {
    const { gw, clock } = h;
    gw.state.record(humanTurn(CHILD)); // 1
    clock.advance(20 * DAY);
    gw.state.record(humanTurn(CHILD)); // 2
    clock.advance(11 * DAY);
    gw.state.prune();
    const d = details(await gw.tools.call(MAIN, 'session_status', { sessionKey: CHILD, changesSince: 0 }));
    expect(d.stateVersion).toBe(2);
    expect(d.stateChanges).toMatchObject({
      truncated: false,
      earliestAvailableSequence: 2,
      historyGap: true,
    });
    const d1 = details(await gw.tools.call(MAIN, 'session_status', { sessionKey: CHILD, changesSince: 1 }));
    expect(d1.stateChanges).toMatchObject({ earliestAvailableSequence: 2, historyGap: false });
  });

  it('scopes a bare key by the agentId argument, defaulting to the caller agent', async () => {
    const { gw } = h;
    gw.state.record({
      sessionKey: 'global',
      agentId: 'main',
      kind: 'goal_changed',
      actorType: 'human',
      summary: 'goal created',
    }); // 1
    gw.state.record({
      sessionKey: 'global',
      agentId: 'ops',
      kind: 'goal_changed',
      actorType: 'human',
      summary: 'goal cleared',
    }); // 2
    const mine = details(
      await gw.tools.call(MAIN, 'session_status', { sessionKey: 'global', changesSince: 0 }),
    );
    expect(mine.stateVersion).toBe(1);
    const ops = details(
      await gw.tools.call(MAIN, 'session_status', { sessionKey: 'global', agentId: 'ops', changesSince: 0 }),
    );
    expect(ops.stateVersion).toBe(2);
    expect((ops.stateChanges as { events: { summary: string }[] }).events.map((e) => e.summary)).toEqual([
      'goal cleared',
    ]);
    const fromOps = details(
      await gw.tools.call('agent:ops:main', 'session_status', { sessionKey: 'global' }),
    );
    expect(fromOps.stateVersion).toBe(2);
  });
});

describe('sessions_list', () => {
  it('includes stateVersion only when it is above 0', async () => {
    const { gw } = h;
    gw.state.record(humanTurn(CHILD));
    gw.state.record(humanTurn(CHILD));
    const d = details(await gw.tools.call(MAIN, 'sessions_list', {}));
    const rows = d.sessions as { key: string; stateVersion?: number }[];
    const byKey = new Map(rows.map((r) => [r.key, r]));
    expect(byKey.get(CHILD)!.stateVersion).toBe(2);
    expect(byKey.get(MAIN)).toBeDefined();
    expect(byKey.get(MAIN)).not.toHaveProperty('stateVersion');
  });
});
