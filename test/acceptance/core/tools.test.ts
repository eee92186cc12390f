/* eslint-disable @typescript-eslint/no-explicit-any -- acceptance suite: tool details are untyped JSON */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MAIN,
  ensureSession,
  findStrings,
  humanEvent,
  listRows,
  logEvent,
  noticeText,
  openEnv,
  rowKey,
  stateEntries,
  waitFor,
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

async function status(args: unknown, caller = MAIN) {
  return env.gw.tools.call(caller, 'session_status', args);
}
function details(r: Awaited<ReturnType<typeof status>>): any {
  if (!r.ok) throw new Error(`tool failed: ${r.error}`);
  return r.details;
}

describe('session_status', () => {
  it('always reports stateVersion; changesSince returns the typed delta', async () => {
    expect(details(await status({ sessionKey: PEER })).stateVersion).toBe(0);
    const a = humanEvent(env.gw, PEER);
    env.advance(5);
    const b = env.gw.state.record({
      sessionKey: PEER,
      kind: 'run_failed',
      actorType: 'system',
      actorId: 'agent:main:x',
      runId: 'run-1',
      summary: 'child run failed',
      payload: { outcome: 'error', channel: 'c', turns: 2, secret: 'nope', catalogId: 'claude' },
    })!;
    const d = details(await status({ sessionKey: PEER, changesSince: 0 }));
    expect(d.stateVersion).toBe(b.sequence);
    expect(d.stateChanges).toEqual({
      events: [
        {
          sequence: a.sequence,
          kind: 'human_direct_message',
          actorType: 'human',
          occurredAt: a.occurredAt,
          summary: 'human message via desktop',
          payload: { channel: 'desktop' },
        },
        {
          sequence: b.sequence,
          kind: 'run_failed',
          actorType: 'system',
          actorId: 'agent:main:x',
          runId: 'run-1',
          occurredAt: b.occurredAt,
          summary: 'child run failed',
          payload: { outcome: 'error', channel: 'c', turns: 2 },
        },
      ],
      truncated: false,
      earliestAvailableSequence: a.sequence,
      historyGap: false,
    });
    const d2 = details(await status({ sessionKey: PEER, changesSince: a.sequence }));
    expect(d2.stateChanges.events.map((e: any) => e.sequence)).toEqual([b.sequence]);
  });

  it('does not advance any cursor', async () => {
    env.gw.state.registerWatch(MAIN, PEER);
    const L = env.gw.state.cursor(MAIN, PEER)!.lastSeen;
    humanEvent(env.gw, PEER);
    const before = env.gw.state.cursor(MAIN, PEER);
    await status({ sessionKey: PEER, changesSince: L });
    expect(env.gw.state.cursor(MAIN, PEER)).toEqual(before);
    expect(stateEntries(env.gw, MAIN)).toHaveLength(1);
  });

  it.each([[-1], [1.5], ['abc'], [null], [Number.NaN]])(
    'rejects changesSince=%s with the exact message',
    async (bad) => {
      const r = await status({ sessionKey: PEER, changesSince: bad });
      expect(r).toEqual({ ok: false, error: 'changesSince must be a non-negative integer' });
    },
  );

  it('unknown session fails with the exact message', async () => {
    expect(await status({ sessionKey: 'agent:main:nope', changesSince: 0 })).toEqual({
      ok: false,
      error: 'Unknown sessionKey: agent:main:nope',
    });
    expect(await status({ sessionKey: 'agent:main:nope' })).toEqual({
      ok: false,
      error: 'Unknown sessionKey: agent:main:nope',
    });
  });

  it('at most 200 events; truncated when more follow', async () => {
    for (let i = 0; i < 230; i++) logEvent(env.gw, PEER, 'compacted', 'session compacted');
    const d = details(await status({ sessionKey: PEER, changesSince: 0 }));
    expect(d.stateChanges.events).toHaveLength(200);
    expect(d.stateChanges.truncated).toBe(true);
    const seqs = d.stateChanges.events.map((e: any) => e.sequence);
    expect([...seqs].sort((x: number, y: number) => x - y)).toEqual(seqs);
  });
});

describe('sessions_list', () => {
  it('rows include stateVersion only when above 0', async () => {
    const ev = humanEvent(env.gw, PEER);
    const r = await env.gw.tools.call(MAIN, 'sessions_list', {});
    expect(r.ok).toBe(true);
    const rows = listRows(r.ok ? r.details : undefined);
    const peer = rows.find((x) => rowKey(x) === PEER);
    const main = rows.find((x) => rowKey(x) === MAIN);
    expect(peer, JSON.stringify(rows)).toBeDefined();
    expect(main).toBeDefined();
    expect(peer!.stateVersion).toBe(ev.sequence);
    expect('stateVersion' in main!).toBe(false);
  });
});

describe('sessions_send', () => {
  it('no watched field without watch; watched:true registers at the current version', async () => {
    const v = humanEvent(env.gw, PEER).sequence;
    const r1 = await env.gw.tools.call(MAIN, 'sessions_send', { sessionKey: PEER, message: 'hello' });
    expect(r1.ok).toBe(true);
    expect(r1.ok && 'watched' in (r1.details as object)).toBe(false);
    expect(env.gw.state.cursor(MAIN, PEER)).toBeUndefined();
    const r2 = await env.gw.tools.call(MAIN, 'sessions_send', {
      sessionKey: PEER,
      message: 'watch you',
      watch: true,
    });
    expect(r2.ok && (r2.details as any).watched).toBe(true);
    const c = env.gw.state.cursor(MAIN, PEER)!;
    expect(c.lastSeen).toBeGreaterThanOrEqual(v);
    expect(c.material).toBeLessThanOrEqual(c.lastSeen);
    expect(stateEntries(env.gw, MAIN)).toHaveLength(0);
  });

  it('watch:false -> watched:false and no cursor', async () => {
    const r = await env.gw.tools.call(MAIN, 'sessions_send', {
      sessionKey: PEER,
      message: 'x',
      watch: false,
    });
    expect(r.ok && (r.details as any).watched).toBe(false);
    expect(env.gw.state.cursor(MAIN, PEER)).toBeUndefined();
  });

  it('watching oneself -> watched:false', async () => {
    const r = await env.gw.tools.call(PEER, 'sessions_send', {
      sessionKey: PEER,
      message: 'me',
      watch: true,
    });
    if (r.ok) expect((r.details as any).watched).toBe(false);
    expect(env.gw.state.cursor(PEER, PEER)).toBeUndefined();
  });

  it('watching a bare-key session -> watched:false', async () => {
    env.gw.sessions.create({ key: 'global', agentId: 'main' });
    const r = await env.gw.tools.call(MAIN, 'sessions_send', {
      sessionKey: 'global',
      message: 'x',
      watch: true,
    });
    if (r.ok) expect((r.details as any).watched).toBe(false);
    expect(env.gw.state.cursor(MAIN, 'global')).toBeUndefined();
  });

  it('a failed send registers nothing', async () => {
    const r = await env.gw.tools.call(MAIN, 'sessions_send', {
      sessionKey: 'agent:main:nope',
      message: 'x',
      watch: true,
    });
    if (r.ok) expect((r.details as any).watched).toBe(false);
    expect(env.gw.state.cursor(MAIN, 'agent:main:nope')).toBeUndefined();
  });

  it('re-registration via send never clobbers a pending cursor', async () => {
    await env.gw.tools.call(MAIN, 'sessions_send', { sessionKey: PEER, message: 'a', watch: true });
    const L = env.gw.state.cursor(MAIN, PEER)!.lastSeen;
    humanEvent(env.gw, PEER);
    const before = env.gw.state.cursor(MAIN, PEER);
    const r = await env.gw.tools.call(MAIN, 'sessions_send', { sessionKey: PEER, message: 'b', watch: true });
    expect(r.ok && (r.details as any).watched).toBe(true);
    expect(env.gw.state.cursor(MAIN, PEER)).toEqual(before);
    expect(stateEntries(env.gw, MAIN).map((e) => e.text)).toEqual([noticeText(PEER, L)]);
  });
});

async function spawn(caller: string, args: Record<string, unknown>) {
  const r = await env.gw.tools.call(caller, 'sessions_spawn', args);
  if (!r.ok) throw new Error(`spawn failed: ${r.error}`);
  const keys = findStrings(r.details, /^agent:[a-z0-9_-]+:(subagent|acp):/);
  expect(keys.length, JSON.stringify(r.details)).toBeGreaterThan(0);
  return { key: keys[0] as string, details: r.details };
}

describe('sessions_spawn and goals', () => {
  it('spawn seeds the parent cursor at the child_spawned sequence (before the first turn)', async () => {
    const { key } = await spawn(MAIN, { task: 'count to three', label: 'counter' });
    expect(key.startsWith('agent:main:subagent:')).toBe(true);
    const evs = env.gw.state.changesSince(key, 0).events;
    expect(evs[0]).toMatchObject({
      kind: 'child_spawned',
      actorType: 'agent',
      actorId: MAIN,
      summary: 'child session spawned',
    });
    const s = evs[0]!.sequence;
    expect(env.gw.state.cursor(MAIN, key)).toEqual({ lastSeen: s, notified: s, material: s });
    expect(stateEntries(env.gw, MAIN)).toHaveLength(0);
    // the run ends: log-only, no notice
    await waitFor(() =>
      env.gw.state
        .changesSince(key, 0)
        .events.some((e) => e.kind === 'run_completed' || e.kind === 'run_failed'),
    );
    const end = env.gw.state.changesSince(key, 0).events.find((e) => e.kind === 'run_completed');
    expect(end?.summary).toBe('child run completed');
    expect(env.gw.state.cursor(MAIN, key)).toEqual({ lastSeen: s, notified: s, material: s });
    expect(stateEntries(env.gw, MAIN)).toHaveLength(0);
  });

  it('goal_set / goal_clear record goal_changed with the spec summaries; the parent is notified', async () => {
    const { key } = await spawn(MAIN, { task: 'idle', label: 'goals' });
    const seed = env.gw.state.cursor(MAIN, key)!.lastSeen;
    const r1 = await env.gw.tools.call(key, 'goal_set', { objective: 'ship the report' });
    expect(r1.ok, JSON.stringify(r1)).toBe(true);
    const r2 = await env.gw.tools.call(key, 'goal_set', { objective: 'ship the report', status: 'blocked' });
    expect(r2.ok, JSON.stringify(r2)).toBe(true);
    const r3 = await env.gw.tools.call(key, 'goal_set', { objective: 'ship two reports', status: 'blocked' });
    expect(r3.ok, JSON.stringify(r3)).toBe(true);
    const r4 = await env.gw.tools.call(key, 'goal_clear', {});
    expect(r4.ok, JSON.stringify(r4)).toBe(true);
    const goals = env.gw.state.changesSince(key, 0).events.filter((e) => e.kind === 'goal_changed');
    expect(goals.map((e) => e.summary)).toEqual([
      'goal created',
      'goal status changed to blocked',
      'goal objective changed',
      'goal cleared',
    ]);
    expect(goals.every((e) => e.actorType === 'agent' && e.actorId === key)).toBe(true);
    expect(stateEntries(env.gw, MAIN).map((e) => e.text)).toEqual([noticeText(key, seed)]);
  });

  it('a goal change on the watcher itself is self-suppressed', async () => {
    env.gw.state.registerWatch(MAIN, PEER);
    // MAIN changes its own goal: no one watches MAIN -> no notice anywhere
    const r = await env.gw.tools.call(MAIN, 'goal_set', { objective: 'coordinate' });
    expect(r.ok, JSON.stringify(r)).toBe(true);
    expect(env.gw.state.changesSince(MAIN, 0).events.map((e) => e.summary)).toContain('goal created');
    expect(stateEntries(env.gw, MAIN)).toHaveLength(0);
  });
});
