// The supervisor's view in the gateway (issue 17): live output streamed for each runtime, one
// derived status per session through every transition (an agent crash mid-run and a gateway
// restart included), and the notice history with the watcher's reconciliation.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiHandlers } from '../../electron/gateway/api/handlers';
import type { Gateway } from '../../electron/gateway';
import type { GatewayEvent, SessionStatus } from '../../shared/ipc';
import { openTestGateway, spawnEdge, waitFor, type TestGateway } from '../helpers/gateway';
import { noticeText } from '../helpers/spec';

const AGENT = path.resolve('test/fixtures/acp-agent/agent.mjs');
const APP = { name: 'Sightline', version: 't', mode: 'web' as const, dataDir: '/tmp' };
let t: TestGateway | undefined;
afterEach(() => {
  t?.cleanup();
  t = undefined;
});

function setup(): { gw: Gateway; events: GatewayEvent[] } {
  t = openTestGateway();
  const events: GatewayEvent[] = [];
  t.gw.events.on((e) => events.push(e));
  // A fast scripted worker: 2 steps of 40 ms, 4 tokens each.
  t.gw.agents.save({
    id: 'main',
    provider: 'scripted',
    providerSettings: { stepMs: '40', steps: '2', tokensPerStep: '4' },
    heartbeatSeconds: 0,
  });
  return { gw: t.gw, events };
}

const statuses = (events: GatewayEvent[], key: string): SessionStatus[] =>
  events.flatMap((e) => (e.type === 'session:status' && e.sessionKey === key ? [e.status.status] : []));

describe('live output', () => {
  it('streams a scripted run: thinking, then text before the run ends; nothing of it in the log', async () => {
    const { gw, events } = setup();
    const key = 'agent:main:subagent:writer';
    gw.sessions.create({ key, label: 'Writer' });
    await gw.human.send(key, 'Draft the release notes');
    await waitFor(() => gw.live.snapshot(key)?.text.includes('working'));
    // Mid-run: the step so far is there for a page opened now, and the fleet's activity line.
    const mid = gw.live.snapshot(key);
    expect(mid?.thinking).toBe('Planning 2 steps for: Draft the release notes');
    expect(mid?.text).toMatch(/^Step 1\/2: working/);
    expect(gw.status.get(key).status).toBe('running');
    await gw.runtime.idle();
    const deltas = events.filter((e) => e.type === 'run:delta' && e.sessionKey === key);
    const text = deltas
      .flatMap((e) => (e.type === 'run:delta' && e.stream === 'text' ? [e.text] : []))
      .join('');
    expect(text).toBe('Step 1/2: working done.\nStep 2/2: working done.\n');
    const ended = events.findIndex(
      (e) => e.type === 'run:changed' && e.run.sessionKey === key && e.run.status === 'idle',
    );
    expect(events.findIndex((e) => e.type === 'run:delta')).toBeLessThan(ended);
    // Landed: the streamed step is now a transcript message; the activity line is its last line.
    expect(gw.live.snapshot(key)).toBeUndefined();
    expect(gw.live.activity(key)).toBe('Finished: Draft the release notes. All 2 steps done.');
    const rows = gw.db.prepare(`SELECT summary, payload FROM session_state_events`).all();
    expect(JSON.stringify(rows)).not.toContain('working on');
    expect(JSON.stringify(t!.logger.lines)).not.toContain('working on');
  });

  it('streams an ACP agent, thoughts included', async () => {
    const { gw, events } = setup();
    gw.acp.profiles.save({
      id: 'fixture',
      name: 'Fixture',
      command: process.execPath,
      args: [AGENT],
      env: {},
      // Agents may start only profiles the person allowed for agents (issue 14.3).
      allowAgents: true,
    });
    const r = await gw.tools.call('agent:main:main', 'sessions_spawn', {
      task: 'think',
      runtime: 'acp',
      profile: 'fixture',
    });
    if (!r.ok) throw new Error(r.error);
    const key = (r.details as { childSessionKey: string }).childSessionKey;
    await waitFor(() => gw.runtime.sessionStatus(key) === 'idle', 10_000, 'ACP run');
    const streamed = events.flatMap((e) =>
      e.type === 'run:delta' && e.sessionKey === key ? [`${e.stream}:${e.text}`] : [],
    );
    expect(streamed).toEqual(['thinking:Considering the notes first.', 'text:Thought ', 'text:it through.']);
    expect(gw.transcripts.all(key).at(-1)?.text).toBe('Thought it through.');
  });
});

describe('the status of a session', () => {
  it('running → done — unseen → idle once the person opened it', async () => {
    const { gw, events } = setup();
    const key = 'agent:main:subagent:a';
    gw.sessions.create({ key });
    expect(gw.status.get(key)).toEqual({ status: 'idle', since: 0 });
    await gw.human.send(key, 'Work');
    await gw.runtime.idle();
    expect(statuses(events, key)).toEqual(['idle', 'running', 'done_unseen']);
    const api = createApiHandlers(gw, { app: APP });
    expect(await api.dispatch('sessions:seen', { sessionKey: key })).toEqual({
      ok: true,
      value: { seen: true },
    });
    expect(gw.status.get(key).status).toBe('idle');
    expect(statuses(events, key).at(-1)).toBe('idle');
  });

  it('running → failed with the reason, in the inbox → retried → running → failed again', async () => {
    const { gw, events } = setup();
    const spawned = await gw.tools.call('agent:main:main', 'sessions_spawn', { task: 'Break [fail]' });
    if (!spawned.ok) throw new Error(spawned.error);
    const key = (spawned.details as { childSessionKey: string }).childSessionKey;
    await gw.runtime.idle();
    const failed = gw.status.get(key);
    expect(failed).toMatchObject({ status: 'failed', reason: 'scripted worker failed at step 2 of 2' });
    const api = createApiHandlers(gw, { app: APP });
    const inbox = await api.dispatch('inbox:list', {});
    // The spawning turn of agent:main:main finished while nobody looked: done — unseen, listed too.
    expect(inbox).toMatchObject({
      ok: true,
      value: [
        {
          type: 'done_unseen',
          sessionKey: 'agent:main:main',
          id: `done:${gw.status.get('agent:main:main').runId}`,
        },
        { type: 'failed', sessionKey: key, reason: 'scripted worker failed at step 2 of 2', retryable: true },
      ],
    });
    // A category the person can turn off; marking the session seen also takes it out.
    await api.dispatch('prefs:set', { inbox: { doneUnseen: false } });
    const types = async () =>
      ((await api.dispatch('inbox:list', {})) as { value: { type: string }[] }).value.map((i) => i.type);
    expect(await types()).toEqual(['failed']);
    await api.dispatch('prefs:set', { inbox: { doneUnseen: true } });
    expect(await types()).toEqual(['done_unseen', 'failed']);
    await api.dispatch('sessions:seen', { sessionKey: 'agent:main:main' });
    expect(await types()).toEqual(['failed']);
    // Retry runs the turn again (the task still says [fail]: it fails again, as a new run).
    expect(await api.dispatch('runs:retry', { sessionKey: key })).toEqual({
      ok: true,
      value: { retried: true },
    });
    await waitFor(() => gw.status.get(key).status === 'running' || gw.status.get(key).runId !== failed.runId);
    await gw.runtime.idle();
    expect(gw.status.get(key).runId).not.toBe(failed.runId);
    expect(statuses(events, key).slice(-4)).toEqual(['running', 'failed', 'running', 'failed']);
    // The retried child reported to its parent like the first run: a second run_failed.
    expect(gw.state.changesSince(key, 0).events.filter((e) => e.kind === 'run_failed')).toHaveLength(2);
    expect(await api.dispatch('runs:retry', { sessionKey: 'agent:main:main' })).toEqual({
      ok: true,
      value: { retried: false },
    });
  });

  it('an ACP agent: waiting for a permission → running → done; an agent crash mid-run → failed', async () => {
    const { gw, events } = setup();
    gw.acp.profiles.save({
      id: 'fixture',
      name: 'Fixture',
      command: process.execPath,
      args: [AGENT],
      env: {},
      // Agents may start only profiles the person allowed for agents (issue 14.3).
      allowAgents: true,
    });
    const spawn = async (task: string) => {
      const r = await gw.tools.call('agent:main:main', 'sessions_spawn', {
        task,
        runtime: 'acp',
        profile: 'fixture',
      });
      if (!r.ok) throw new Error(r.error);
      return (r.details as { childSessionKey: string }).childSessionKey;
    };
    const asking = await spawn('permission');
    await waitFor(() => gw.status.get(asking).status === 'waiting', 10_000, 'waiting');
    expect(gw.status.get(asking).reason).toBe('Delete build/');
    const req = gw.acp.permissions.pending()[0]!;
    gw.acp.permissions.respond(req.id, 'allow-once');
    await waitFor(() => gw.status.get(asking).status === 'done_unseen', 10_000, 'done');
    expect(statuses(events, asking)).toEqual(['running', 'waiting', 'running', 'done_unseen']);

    const crashing = await spawn('crash');
    await waitFor(() => gw.status.get(crashing).status === 'failed', 10_000, 'crash');
    expect(gw.status.get(crashing).reason).toMatch(/exit|crash|code 3/i);
    expect(statuses(events, crashing)).toEqual(['running', 'failed']);
  });

  it('a gateway restart mid-run: the run is failed, never left running', async () => {
    const { gw } = setup();
    gw.agents.save({
      id: 'main',
      provider: 'scripted',
      providerSettings: { stepMs: '5000' },
      heartbeatSeconds: 0,
    });
    const key = 'agent:main:subagent:long';
    gw.sessions.create({ key });
    await gw.human.send(key, 'A long task');
    await waitFor(() => gw.status.get(key).status === 'running');
    const after = t!.restart();
    expect(after.status.get(key)).toMatchObject({ status: 'failed', reason: 'interrupted by a restart' });
  });
});

describe('the notice history', () => {
  it('records each drained notice where the watcher read it, and its next session_status on the target', async () => {
    const { gw, events } = setup();
    const watcher = 'agent:main:main';
    const child = 'agent:main:subagent:c';
    const seed = spawnEdge(gw, child, watcher);
    await gw.human.send(child, 'A human step-in');
    await gw.runtime.idle();
    expect(gw.notices.peek(watcher)).toHaveLength(1);
    const api = createApiHandlers(gw, { app: APP });
    const before = await api.dispatch('inbox:history', {});
    expect(before).toMatchObject({
      ok: true,
      value: { pending: [{ watcher, target: child, text: noticeText(child, seed.sequence) }], delivered: [] },
    });
    // The watcher's heartbeat turn drains the notice and (the scripted coordinator) reconciles.
    await gw.runtime.heartbeat(watcher);
    await gw.runtime.idle();
    const history = await api.dispatch('inbox:history', {});
    const delivered = history.ok
      ? (history.value as { delivered: { reconciled?: unknown }[] }).delivered
      : [];
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toMatchObject({
      watcher,
      target: child,
      text: noticeText(child, seed.sequence),
      changesSince: seed.sequence,
      reconciled: { version: gw.state.version(child), changesSince: seed.sequence },
    });
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['notice:delivered', 'notice:reconciled']),
    );
    // In the watcher's transcript page: after the message its turn had read up to.
    const page = await api.dispatch('transcript:page', { sessionKey: watcher });
    const value = page.ok
      ? (page.value as { messages: { id: number }[]; notices: { afterMessageId: number }[] })
      : undefined;
    expect(value?.notices).toHaveLength(1);
    const status = gw.transcripts
      .all(watcher)
      .find((m) => m.toolCalls?.some((c) => c.name === 'session_status'));
    expect(value!.notices[0]!.afterMessageId).toBeLessThan(status!.id);
  });
});
