// ACP children through the gateway contract, with the fixture agent as a real process.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayEvent } from '../../electron/gateway/types';
import { openTestGateway, waitFor, type TestGateway } from '../helpers/gateway';
import { noticeText } from '../helpers/spec';

const AGENT = path.resolve('test/fixtures/acp-agent/agent.mjs');
let t: TestGateway;
afterEach(() => t?.cleanup());

function setup() {
  t = openTestGateway();
  t.gw.acp.profiles.save({
    id: 'fixture',
    name: 'Fixture agent',
    command: process.execPath,
    args: [AGENT],
    env: {},
    // Agents may start only profiles the person allowed for agents (issue 14.3).
    allowAgents: true,
  });
  return t.gw;
}

async function spawn(task: string, extra: Record<string, unknown> = {}) {
  const r = await t.gw.tools.call('agent:main:main', 'sessions_spawn', {
    task,
    runtime: 'acp',
    profile: 'fixture',
    ...extra,
  });
  if (!r.ok) throw new Error(r.error);
  return (r.details as { childSessionKey: string }).childSessionKey;
}

const lastEvent = (key: string) => t.gw.state.changesSince(key, 0).events.at(-1);
const settled = (key: string) => () =>
  ['idle', 'failed', 'cancelled'].includes(t.gw.runtime.sessionStatus(key));

describe('ACP children', () => {
  it('streams the agent into the transcript and records run_completed', async () => {
    const gw = setup();
    const key = await spawn('stream please');
    expect(key).toMatch(/^agent:main:acp:[0-9a-f]{8}$/);
    const first = gw.state.changesSince(key, 0).events[0]!;
    expect(first).toMatchObject({ kind: 'child_spawned', actorId: 'agent:main:main' });
    expect(gw.state.cursor('agent:main:main', key)).toEqual({
      lastSeen: first.sequence,
      notified: first.sequence,
      material: first.sequence,
    });
    await waitFor(settled(key), 8000, 'stream run');
    expect(lastEvent(key)).toMatchObject({ kind: 'run_completed', summary: 'child run completed' });
    const roles = gw.transcripts.all(key).map((m) => m.role);
    expect(roles[0]).toBe('user');
    expect(roles).toContain('tool');
    expect(roles).toContain('assistant');
    await waitFor(
      () => gw.transcripts.all('agent:main:main').some((m) => m.text.includes(`Worker ${key} completed.`)),
      5000,
      'announcement',
    );
  });

  it('surfaces permission requests to the person only and records the decision', async () => {
    const gw = setup();
    const asked: GatewayEvent[] = [];
    gw.events.on((e) => e.type === 'acp:permission' && asked.push(e));
    const key = await spawn('permission');
    await waitFor(() => gw.acp.permissions.pending().length === 1, 8000, 'permission request');
    const req = gw.acp.permissions.pending()[0]!;
    expect(req.sessionKey).toBe(key);
    expect(asked).toHaveLength(1);
    expect(() => gw.acp.permissions.respond(req.id, 'nope')).toThrow('Unknown permission option: nope');
    const allow = req.options.find((o) => o.kind === 'allow_once')!;
    expect(gw.acp.permissions.respond(req.id, allow.optionId)).toBe(true);
    await waitFor(settled(key), 8000, 'permission run');
    expect(
      gw.transcripts.all(key).some((m) => m.role === 'system' && m.text.startsWith('Permission "')),
    ).toBe(true);
    expect(lastEvent(key)).toMatchObject({ kind: 'run_completed' });
  });

  it('ends runs with the precise outcome: cancelled, timeout, error', async () => {
    const gw = setup();
    const hang = await spawn('hang');
    const slow = await spawn('hang', { timeoutSeconds: 1 });
    const crash = await spawn('crash');
    const garbage = await spawn('garbage');
    // Cancelled while the agent may still be starting: the cancel waits for it (cancelRequested).
    await waitFor(() => gw.runtime.sessionStatus(hang) === 'running', 8000, 'hang running');
    expect(gw.runtime.cancel(hang)).toBe(true);
    for (const k of [hang, slow, crash, garbage]) await waitFor(settled(k), 10_000, `settle ${k}`);
    expect(lastEvent(hang)).toMatchObject({
      kind: 'run_failed',
      summary: 'child run cancelled',
      payload: { outcome: 'cancelled' },
    });
    expect(lastEvent(slow)).toMatchObject({
      kind: 'run_failed',
      summary: 'child run timed out',
      payload: { outcome: 'timeout' },
    });
    expect(lastEvent(crash)).toMatchObject({
      kind: 'run_failed',
      summary: 'child run failed',
      payload: { outcome: 'error' },
    });
    expect(lastEvent(garbage)).toMatchObject({
      kind: 'run_failed',
      summary: 'child run failed',
      payload: { outcome: 'error' },
    });
    expect(gw.runtime.status(garbage)?.error).toMatch(/^malformed protocol message from the agent/);
  });

  it('sends a human message to the child as a prompt and notifies the parent once', async () => {
    const gw = setup();
    const key = await spawn('answer first');
    await waitFor(settled(key), 8000, 'first run');
    const v = gw.state.cursor('agent:main:main', key)!.lastSeen;
    await gw.human.send(key, 'answer again, with tests');
    const e = lastEvent(key)!;
    expect(e).toMatchObject({
      kind: 'human_direct_message',
      summary: 'human message via acp',
      payload: { channel: 'acp' },
    });
    expect(gw.notices.peek('agent:main:main').map((n) => n.text)).toContain(noticeText(key, v));
    await waitFor(() => gw.runtime.runs(key).length === 2 && settled(key)(), 8000, 'second prompt');
    expect(
      gw.transcripts
        .all(key)
        .filter((m) => m.role === 'user')
        .map((m) => m.actorType),
    ).toEqual(['agent', 'human']);
  });

  it('names a missing command and leaves no process after close()', async () => {
    const gw = setup();
    gw.acp.profiles.save({
      id: 'ghost',
      name: 'Ghost',
      command: 'no-such-acp-agent-xyz',
      args: [],
      env: {},
      allowAgents: true,
    });
    expect(
      await gw.tools.call('agent:main:main', 'sessions_spawn', {
        task: 'x',
        runtime: 'acp',
        profile: 'ghost',
      }),
    ).toEqual({
      ok: false,
      error: 'ACP agent command not found: no-such-acp-agent-xyz',
    });
    await spawn('hang');
    const { liveAcpChildCount } = await import('../../electron/gateway/runtime/acp');
    await waitFor(() => liveAcpChildCount() === 1, 8000, 'the agent process');
    gw.close();
    await waitFor(() => liveAcpChildCount() === 0, 5000, 'children gone');
  });
});
