// Issue 6: ACP children through sessions_spawn with runtime 'acp'.
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MAIN,
  contextKeyFor,
  events,
  makeEnv,
  noticeText,
  ofKind,
  pidsWith,
  waitFor,
  type Env,
  type Gw,
} from './helpers';

const AGENT = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../fixtures/acp-agent/agent.mjs',
);

let env: Env;
let marker: string;
beforeEach(() => {
  env = makeEnv();
  marker = `--qa-marker=${randomUUID()}`;
});
afterEach(async () => {
  env.cleanup();
  // never leave a fixture agent behind, whatever the test did
  await waitFor(() => pidsWith(marker).length === 0, 5000).catch(() => {
    for (const pid of pidsWith(marker)) process.kill(pid, 'SIGKILL');
  });
});

function open(envVars: Record<string, string> = {}): Gw {
  const gw = env.open();
  gw.acp.profiles.save({
    id: 'fixture',
    name: 'Fixture agent',
    command: process.execPath,
    args: [AGENT, marker],
    env: envVars,
    // Issue 14.3: agents may start only profiles allowed for agents.
    allowAgents: true,
  });
  return gw;
}

async function spawn(gw: Gw, task: string, extra: Record<string, unknown> = {}) {
  const before = new Set(gw.sessions.list().map((s) => s.key));
  const res = await gw.tools.call(MAIN, 'sessions_spawn', {
    task,
    runtime: 'acp',
    profile: 'fixture',
    ...extra,
  });
  expect(res, JSON.stringify(res)).toMatchObject({ ok: true });
  const created = gw.sessions.list().filter((s) => !before.has(s.key));
  expect(created.map((s) => s.key)).toHaveLength(1);
  return { key: created[0]!.key, res };
}

async function history(gw: Gw, key: string): Promise<{ role: string; text: string }[]> {
  const r = await gw.tools.call(MAIN, 'sessions_history', { sessionKey: key });
  return r.ok ? ((r.details as { messages?: { role: string; text: string }[] }).messages ?? []) : [];
}

const isEnd = (kind: string) => kind === 'run_completed' || kind === 'run_failed';
const ended = (gw: Gw, key: string) => events(gw, key).filter((e) => isEnd(e.kind));

/**
 * Waits on the gateway's own signal, not on a clock: `endOf(key)` resolves when the run's
 * outcome (run_completed / run_failed) is pushed for `key`. Subscribe before spawning, so an
 * outcome that comes early is kept. A run that never ends fails the test at its timeout.
 */
function outcomes(gw: Gw): (key: string) => Promise<unknown> {
  const seen = new Set<string>();
  const waiting = new Map<string, () => void>();
  gw.events.on((ev) => {
    if (ev.type !== 'state:event' || !isEnd(ev.event.kind)) return;
    seen.add(ev.sessionKey);
    waiting.get(ev.sessionKey)?.();
  });
  return (key) =>
    seen.has(key) ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(key, resolve));
}

describe('ACP children', () => {
  it('spawn creates agent:main:acp:<id>, records child_spawned first and run_completed at the end', async () => {
    const gw = open();
    const { key } = await spawn(gw, 'answer hello there');
    expect(key).toMatch(/^agent:main:acp:[^:]+$/);
    const spawned = ofKind(gw, key, 'child_spawned');
    expect(spawned).toHaveLength(1);
    expect(spawned[0]).toMatchObject({ actorType: 'agent', actorId: MAIN, summary: 'child session spawned' });
    const seq = spawned[0].sequence;
    expect(gw.state.cursor(MAIN, key)).toEqual({ lastSeen: seq, notified: seq, material: seq });
    const end = await waitFor(() => ended(gw, key)[0]);
    expect(end).toMatchObject({ kind: 'run_completed', summary: 'child run completed' });
    expect(events(gw, key)[0].kind).toBe('child_spawned');
    expect(end.sequence).toBeGreaterThan(seq);
    // log-only kinds: the parent gets no stale-state notice about its own child's run
    expect(gw.notices.peek(MAIN).filter((n) => n.contextKey === contextKeyFor(key))).toHaveLength(0);
    expect(gw.state.cursor(MAIN, key)!.material).toBe(seq);
  });

  it('child_spawned is recorded before the first prompt finishes (hang script still running)', async () => {
    const gw = open();
    const { key } = await spawn(gw, 'hang forever');
    expect(events(gw, key).map((e) => e.kind)).toEqual(['child_spawned']);
  });

  it('a crashing agent → run_failed {outcome: error}, "child run failed"', async () => {
    const gw = open();
    const { key } = await spawn(gw, 'crash now');
    const end = await waitFor(() => ended(gw, key)[0]);
    expect(end).toMatchObject({ kind: 'run_failed', summary: 'child run failed' });
    expect(end.payload?.outcome).toBe('error');
  });

  it('an agent request error → run_failed {outcome: error}', async () => {
    const gw = open();
    const { key } = await spawn(gw, 'fail please');
    const end = await waitFor(() => ended(gw, key)[0]);
    expect(end).toMatchObject({
      kind: 'run_failed',
      summary: 'child run failed',
      payload: { outcome: 'error' },
    });
  });

  it('a hanging agent past its timeout → run_failed {outcome: timeout}, "child run timed out"', async () => {
    const gw = open();
    const { key } = await spawn(gw, 'hang here', { timeoutSeconds: 1 });
    const end = await waitFor(() => ended(gw, key)[0], 6000);
    expect(end).toMatchObject({
      kind: 'run_failed',
      summary: 'child run timed out',
      payload: { outcome: 'timeout' },
    });
  });

  it('a cancelled run → run_failed {outcome: cancelled}, "child run cancelled"', async () => {
    const gw = open();
    const { key } = await spawn(gw, 'hang until cancelled');
    await waitFor(() => gw.runtime.sessionStatus(key) === 'running');
    await gw.runtime.cancel(key);
    const end = await waitFor(() => ended(gw, key)[0], 6000);
    expect(end).toMatchObject({
      kind: 'run_failed',
      summary: 'child run cancelled',
      payload: { outcome: 'cancelled' },
    });
  });

  it('a human message to the ACP child → human_direct_message via acp, one notice for the parent', async () => {
    const gw = open();
    const { key } = await spawn(gw, 'answer first');
    await waitFor(() => ended(gw, key)[0]);
    const L = gw.state.cursor(MAIN, key)!.lastSeen;
    gw.notices.drain(MAIN);
    await gw.human.send(key, 'answer from the person', { channel: 'acp' });
    const h = ofKind(gw, key, 'human_direct_message');
    expect(h).toHaveLength(1);
    expect(h[0]).toMatchObject({ actorType: 'human', summary: 'human message via acp' });
    const mine = gw.notices.peek(MAIN).filter((n) => n.contextKey === contextKeyFor(key));
    expect(mine).toEqual([{ text: noticeText(key, L), contextKey: contextKeyFor(key) }]);
    // the human turn runs in the child (a human turn is not a "child run": no second run_* event is required)
    await waitFor(
      () => history(gw, key).then((m) => m.some((x) => x.text === 'You said: answer from the person')),
      8000,
    );
  });

  it('human.send without a channel on an ACP child records channel acp (issue 6 wording)', async () => {
    const gw = open();
    const { key } = await spawn(gw, 'answer first');
    await waitFor(() => ended(gw, key)[0]);
    await gw.human.send(key, 'answer again');
    const h = ofKind(gw, key, 'human_direct_message');
    expect(h).toHaveLength(1);
    expect(h[0].summary).toBe('human message via acp');
  });

  it('every spawned run ends with exactly one run_completed/run_failed (refuse, garbage, stream, slow)', async () => {
    const gw = open();
    const endOf = outcomes(gw);
    const kids = [];
    for (const task of ['refuse this', 'garbage out', 'stream it', 'slow one'])
      kids.push({ task, ...(await spawn(gw, task, { timeoutSeconds: 2 })) });
    for (const k of kids) {
      await endOf(k.key);
      // The run is over on the runtime's side too (its run ends before the outcome is logged),
      // so a second outcome could only have come before this one.
      expect(['queued', 'running'], k.task).not.toContain(gw.runtime.sessionStatus(k.key));
      const e = ended(gw, k.key);
      expect(e, k.task).toHaveLength(1);
      if (e[0].kind === 'run_failed')
        expect(['error', 'timeout', 'cancelled'], k.task).toContain(e[0].payload?.outcome);
      if (k.task.startsWith('stream') || k.task.startsWith('slow'))
        expect(e[0].kind, k.task).toBe('run_completed');
    }
  });

  it('no leftover agent processes after close(), also for a stubborn agent mid-run', async () => {
    const gw = open({ ACP_FIXTURE_STUBBORN: '1' });
    await spawn(gw, 'hang a');
    await spawn(gw, 'answer b');
    await waitFor(() => pidsWith(marker).length >= 1);
    gw.close();
    const t = Date.now();
    await waitFor(() => pidsWith(marker).length === 0, 5000);
    expect(Date.now() - t).toBeLessThan(5000);
  });

  it('no leftover agent processes after close() for finished runs', async () => {
    const gw = open();
    const { key } = await spawn(gw, 'answer done');
    await waitFor(() => ended(gw, key)[0]);
    gw.close();
    await waitFor(() => pidsWith(marker).length === 0, 3000);
  });
});
