// `fleet:compact` (issue 31.4): the renderer loads the fleet as its views without the fields that
// hold their default. fleet-snapshot.test.ts checks that it expands back to fleet:snapshot over a
// fleet that ran; here, what travels and what does not.
import { afterEach, expect, it } from 'vitest';
import { createApiHandlers } from '../../electron/gateway/api/handlers';
import { sessionFromWire, sessionToWire, type FleetWire } from '../../shared/ipc/types';
import { openTestGateway, type TestGateway } from '../helpers/gateway';

let t: TestGateway | undefined;
afterEach(() => t?.cleanup());

it('carries a session that never ran as its identity alone, and what differs from a default', async () => {
  t = openTestGateway();
  const { gw, dataDir } = t;
  gw.sessions.create({ key: 'agent:main:subagent:fresh', parentKey: 'agent:main:main' });
  gw.sessions.create({ key: 'agent:main:subagent:old', parentKey: 'agent:main:main', label: 'old one' });
  gw.sessions.archive('agent:main:subagent:old');
  gw.goals.set('agent:main:subagent:old', { objective: 'kept', status: 'active' }, { type: 'human' });
  const api = createApiHandlers(gw, { app: { name: 'Sightline', version: 'test', mode: 'web', dataDir } });
  const { value } = (await api.dispatch('fleet:compact', {})) as { ok: true; value: FleetWire };
  const byKey = new Map(value.sessions.map((w) => [w.key, w]));
  expect(Object.keys(byKey.get('agent:main:subagent:fresh')!).sort()).toEqual([
    'agentId',
    'createdAt',
    'key',
    'kind',
    'parentKey',
    'updatedAt',
  ]);
  const old = byKey.get('agent:main:subagent:old')!;
  expect(old).toMatchObject({
    label: 'old one',
    archived: true,
    goal: { objective: 'kept', status: 'active' },
  });
  expect(old.stateVersion).toBeGreaterThan(0); // the goal was recorded in its log
  expect(old.runStatus).toBeUndefined();
});

it('keeps a status that differs from idle-since-0 in any field, and restores the defaults', () => {
  const base = sessionFromWire({
    key: 'agent:a:main',
    agentId: 'a',
    createdAt: 1,
    updatedAt: 2,
    kind: 'main',
  });
  expect(base).toEqual({
    key: 'agent:a:main',
    agentId: 'a',
    createdAt: 1,
    updatedAt: 2,
    kind: 'main',
    stateVersion: 0,
    runStatus: 'none',
    pendingNotices: 0,
    alert: null,
    goal: null,
    tokens: { input: 0, output: 0 },
    status: { status: 'idle', since: 0 },
  });
  expect(sessionToWire(base)).toEqual({
    key: 'agent:a:main',
    agentId: 'a',
    createdAt: 1,
    updatedAt: 2,
    kind: 'main',
  });
  const odd = { ...base, status: { status: 'idle' as const, since: 0, reason: 'x' } };
  expect(sessionToWire(odd).status).toEqual({ status: 'idle', since: 0, reason: 'x' });
  expect(sessionFromWire(sessionToWire(odd))).toEqual(odd);
  // The shared defaults are frozen: a change in place fails instead of changing every session.
  expect(() => {
    (base.tokens as { input: number }).input = 5;
  }).toThrow(TypeError);
});
