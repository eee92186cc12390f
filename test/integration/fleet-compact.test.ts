// The page's loads of the fleet (issue 31.4) take it as `fleet:compact`: its views without their
// defaulted fields. Nothing may be lost or invented on the way.
import { afterEach, describe, expect, it } from 'vitest';
import { createApiHandlers } from '../../electron/gateway/api/handlers';
import { sessionFromWire, sessionToWire, type FleetSnapshot, type FleetWire } from '../../shared/ipc/types';
import { openTestGateway, waitFor, type TestGateway } from '../helpers/gateway';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function gateway(): TestGateway {
  const t = openTestGateway();
  cleanups.push(() => t.cleanup());
  return t;
}

describe('fleet:compact', () => {
  it('is fleet:snapshot without the defaulted fields, and expands back to it exactly', async () => {
    const { gw, dataDir } = gateway();
    gw.agents.save({ id: 'main', providerSettings: { stepMs: '5', steps: '2' }, heartbeatSeconds: 0 });
    // A coordinator that ran and spawned workers (runs, versions, cursors), a goal, a pending
    // notice, an archived session and sessions that never ran.
    await gw.human.send('agent:main:main', 'Ship it: research the changes, draft the notes');
    await waitFor(() => gw.sessions.list().some((s) => s.parentKey === 'agent:main:main'), 5000, 'spawn');
    await gw.runtime.idle();
    const worker = gw.sessions.list().find((s) => s.parentKey === 'agent:main:main')!;
    gw.sessions.create({ key: 'agent:main:subagent:auditor' });
    gw.state.registerWatch('agent:main:subagent:auditor', worker.key);
    await gw.human.send(worker.key, 'Use the release branch.');
    gw.goals.set(worker.key, { objective: 'notes drafted', status: 'blocked' }, { type: 'human' });
    gw.sessions.create({ key: 'agent:main:subagent:old', parentKey: 'agent:main:main', label: 'old one' });
    gw.sessions.archive('agent:main:subagent:old');
    gw.sessions.create({ key: 'agent:main:subagent:fresh', parentKey: 'agent:main:main' });
    await gw.runtime.idle();

    const api = createApiHandlers(gw, { app: { name: 'Sightline', version: 'test', mode: 'web', dataDir } });
    const full = (await api.dispatch('fleet:snapshot', {})) as { ok: true; value: FleetSnapshot };
    const compact = (await api.dispatch('fleet:compact', {})) as { ok: true; value: FleetWire };
    expect(compact.ok).toBe(true);
    expect(compact.value.agents).toEqual(full.value.agents);
    expect(structuredClone(compact.value.sessions).map(sessionFromWire)).toEqual(full.value.sessions);

    // A session that never ran travels as its identity alone.
    const fresh = compact.value.sessions.find((w) => w.key === 'agent:main:subagent:fresh')!;
    expect(Object.keys(fresh).sort()).toEqual([
      'agentId',
      'createdAt',
      'key',
      'kind',
      'parentKey',
      'updatedAt',
    ]);
    // What differs from the defaults travels.
    const w = compact.value.sessions.find((x) => x.key === worker.key)!;
    expect(w.goal).toMatchObject({ objective: 'notes drafted', status: 'blocked' });
    expect(w.runStatus).not.toBeUndefined();
    expect(w.stateVersion).toBeGreaterThan(0);
    const auditor = compact.value.sessions.find((x) => x.key === 'agent:main:subagent:auditor')!;
    expect(auditor.pendingNotices).toBe(1);
    expect(compact.value.sessions.find((x) => x.key === 'agent:main:subagent:old')!.archived).toBe(true);
    // The defaults stay home.
    expect(JSON.stringify(compact.value).length).toBeLessThan(JSON.stringify(full.value).length);
  });

  it('keeps a status that differs from idle-since-0 in any field', () => {
    const base = sessionFromWire({
      key: 'agent:a:main',
      agentId: 'a',
      createdAt: 1,
      updatedAt: 2,
      kind: 'main',
    });
    const odd = { ...base, status: { status: 'idle' as const, since: 0, reason: 'x' } };
    expect(sessionToWire(odd).status).toEqual({ status: 'idle', since: 0, reason: 'x' });
    expect(sessionFromWire(sessionToWire(odd))).toEqual(odd);
    expect(sessionToWire(base)).toEqual({
      key: 'agent:a:main',
      agentId: 'a',
      createdAt: 1,
      updatedAt: 2,
      kind: 'main',
    });
  });
});
