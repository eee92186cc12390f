// The fleet snapshot reads every session's facts in bulk (four queries, not five per session);
// each of its views must be exactly what sessions:get answers for that session alone.
import { afterEach, expect, it } from 'vitest';
import { createApiHandlers } from '../../electron/gateway/api/handlers';
import { parseSessionKey } from '../../shared/session-keys';
import {
  sessionFromWire,
  type FleetSnapshot,
  type FleetWire,
  type SessionView,
} from '../../shared/ipc/types';
import { openTestGateway, waitFor, type TestGateway } from '../helpers/gateway';
import {
  OA_DONE,
  oaDelta,
  oaUsage,
  sendSse,
  startWireServer,
  type WireServer,
} from '../providers/wire-server';

let t: TestGateway;
let model: WireServer | undefined;
afterEach(async () => {
  t?.cleanup();
  await model?.close();
});

it('fleet:snapshot equals sessions:get for every session: runs, tokens, goals, versions, notices', async () => {
  t = openTestGateway();
  const gw = t.gw;
  gw.agents.save({ id: 'main', providerSettings: { stepMs: '5', steps: '2' }, heartbeatSeconds: 0 });
  // A coordinator that ran and spawned workers (runs with tokens, versions, seeded cursors).
  await gw.human.send('agent:main:main', 'Ship it: research the changes, draft the notes');
  await waitFor(
    () => gw.sessions.list().filter((s) => s.parentKey === 'agent:main:main').length >= 2,
    5000,
    'spawns',
  );
  await gw.runtime.idle();
  const worker = gw.sessions.list().find((s) => s.parentKey === 'agent:main:main')!;
  // A pending notice for the coordinator, a goal, a bare session, sessions that never ran.
  // A sub-agent watcher is never woken: its notice stays pending whatever the timing.
  gw.sessions.create({ key: 'agent:main:subagent:auditor' });
  gw.state.registerWatch('agent:main:subagent:auditor', worker.key);
  await gw.human.send(worker.key, 'Use the release branch.');
  gw.goals.set(worker.key, { objective: 'notes drafted', status: 'blocked' }, { type: 'human' });
  gw.sessions.create({ key: 'global', agentId: 'ops', label: 'bare' });
  gw.state.record({
    sessionKey: 'global',
    agentId: 'ops',
    kind: 'compacted',
    actorType: 'system',
    summary: 'session compacted',
  });
  // A model that reports its tokens (a scripted agent reports none).
  model = await startWireServer();
  model.handle((_req, res) =>
    sendSse(res, [oaDelta({ content: 'ok' }), oaDelta({}, 'stop'), oaUsage(12, 3), OA_DONE]),
  );
  gw.agents.save({
    id: 'writer',
    provider: 'openai',
    providerSettings: { model: 'gpt-test', baseUrl: `${model.origin}/v1`, apiKey: 'sk-test-0123456789' },
  });
  gw.sessions.create({ key: 'agent:writer:main', agentId: 'writer' });
  await gw.human.send('agent:writer:main', 'hello');
  for (let i = 0; i < 5; i++)
    gw.sessions.create({ key: `agent:other:subagent:idle${i}`, parentKey: 'agent:other:main' });
  await gw.runtime.idle();

  const api = createApiHandlers(gw, {
    app: { name: 'Sightline', version: 'test', mode: 'web', dataDir: t.dataDir },
  });
  const snap = await api.dispatch('fleet:snapshot', {});
  expect(snap.ok).toBe(true);
  const views = (snap as { ok: true; value: FleetSnapshot }).value.sessions;
  expect(views.map((v) => v.key)).toEqual(gw.sessions.list().map((s) => s.key));
  const one: SessionView[] = [];
  for (const v of views) {
    const r = await api.dispatch('sessions:get', { sessionKey: v.key });
    expect(r.ok).toBe(true);
    one.push((r as { ok: true; value: SessionView }).value);
  }
  expect(views).toEqual(one);
  // The facts the bulk path reads are really there (the comparison is not between two empties).
  const byKey = new Map(views.map((v) => [v.key, v]));
  expect(byKey.get('agent:main:subagent:auditor')).toMatchObject({ runStatus: 'none', pendingNotices: 1 });
  expect(byKey.get('agent:writer:main')!.tokens).toMatchObject({ input: 12, output: 3 });
  expect(byKey.get(worker.key)).toMatchObject({ goal: { objective: 'notes drafted', status: 'blocked' } });
  expect(byKey.get(worker.key)!.stateVersion).toBeGreaterThan(0);
  expect(byKey.get('global')).toMatchObject({ agentId: 'ops', stateVersion: expect.any(Number) });
  expect(byKey.get('global')!.stateVersion).toBeGreaterThan(0);
  expect(byKey.get('agent:other:subagent:idle0')).toMatchObject({
    runStatus: 'none',
    stateVersion: 0,
    goal: null,
  });

  // The renderer's load (issue 31.4): the same views without their defaulted fields.
  const compact = (await api.dispatch('fleet:compact', {})) as { ok: true; value: FleetWire };
  expect(compact.ok).toBe(true);
  expect(compact.value.agents).toEqual((snap as { ok: true; value: FleetSnapshot }).value.agents);
  expect(compact.value.sessions.map(sessionFromWire)).toEqual(views);
});

it('listAdopted (the inbox) finds exactly the adopted sessions, in list order', () => {
  t = openTestGateway();
  const gw = t.gw;
  for (const key of [
    'agent:main:adopted:codex:t-1',
    'agent:main:subagent:adopted:x', // "adopted:" inside rest, not at its start
    'agent:ops:adopted:claude:t-2',
    'adopted:codex:bare',
    'agent:main:adopted:pi:t-3',
  ])
    gw.sessions.create({ key, agentId: 'main' });
  const adopted = gw.sessions.list().filter((s) => parseSessionKey(s.key).kind === 'adopted');
  expect(adopted.map((s) => s.key).sort()).toEqual([
    'agent:main:adopted:codex:t-1',
    'agent:main:adopted:pi:t-3',
    'agent:ops:adopted:claude:t-2',
  ]);
  expect(gw.sessions.listAdopted!()).toEqual(adopted);
});
