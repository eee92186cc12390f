// The page's first load of the fleet (issue 31.4): the gateway prepares the snapshot while the page
// loads (once the page's own files are sent), the page takes it as `fleet:compact` (its views without their defaulted fields), and
// neither may lose or invent a thing.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createApiHandlers } from '../../electron/gateway/api/handlers';
import { createFleetSnapshots, PREPARED_MAX_AGE_MS } from '../../electron/gateway/api/fleet-snapshot';
import { createMemoryDismissalStore } from '../../electron/gateway/person/dismissals';
import { startWebServer, type WebServer } from '../../electron/web/server';
import { createPageLoads, linkedFiles } from '../../electron/web/page-load';
import { sessionFromWire, sessionToWire, type FleetSnapshot, type FleetWire } from '../../shared/ipc/types';
import { FakeClock, openTestGateway, tempDir, waitFor, type TestGateway } from '../helpers/gateway';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function gateway(): TestGateway {
  const t = openTestGateway();
  cleanups.push(() => t.cleanup());
  return t;
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

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

describe('the prepared snapshot', () => {
  it('serves the request that follows the page once, while nothing changed and it is fresh', async () => {
    const { gw } = gateway();
    const clock = new FakeClock(1_000);
    let built = 0;
    const fleet = createFleetSnapshots(gw, createMemoryDismissalStore(), () => ++built, clock.now);

    fleet.prepare();
    fleet.prepare(); // a second page load while the first is being prepared: one build
    await nextTurn();
    expect(built).toBe(1);
    expect(fleet.take().generatedAt).toBe(1); // the prepared one
    expect(fleet.take().generatedAt).toBe(2); // one request only: then built anew

    // Any change drops it: the new session is in what the page gets.
    fleet.prepare();
    await nextTurn();
    gw.sessions.create({ key: 'agent:main:subagent:late' });
    const after = fleet.take();
    expect(after.generatedAt).toBe(4);
    expect(after.sessions.map((s) => s.key)).toContain('agent:main:subagent:late');

    // Older than PREPARED_MAX_AGE_MS: built anew.
    fleet.prepare();
    await nextTurn();
    clock.advance(PREPARED_MAX_AGE_MS + 1);
    expect(fleet.take().generatedAt).toBe(6);
  });

  async function served(): Promise<{ t: TestGateway; server: WebServer }> {
    const t = gateway();
    const rendererDir = tempDir('sightline-first-load-renderer-');
    fs.writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>Sightline</title>');
    const server = await startWebServer({ gateway: t.gw, rendererDir });
    cleanups.push(() => server.close());
    const page = await fetch(`http://127.0.0.1:${server.port}/`);
    expect(page.status).toBe(200);
    await nextTurn();
    return { t, server };
  }

  it('is prepared by serving the page: the first request gets the snapshot built before it', async () => {
    const { t, server } = await served();
    const asked = Date.now();
    while (Date.now() === asked) await nextTurn(); // a request built now would carry a later time
    const fleet = (await request(server, 'fleet:compact')) as { ok: true; value: FleetWire };
    expect(fleet.value.generatedAt).toBeLessThanOrEqual(asked);
    expect(fleet.value.sessions.map((s) => s.key)).toEqual(t.gw.sessions.list().map((s) => s.key));
    // Only once: the next request is built for it.
    const again = (await request(server, 'fleet:compact', 2)) as { ok: true; value: FleetWire };
    expect(again.value.generatedAt).toBeGreaterThan(asked);
  });

  it('is dropped when the fleet changes between the page and its request', async () => {
    const { t, server } = await served();
    t.gw.sessions.create({ key: 'agent:main:subagent:between' });
    const fleet = (await request(server, 'fleet:compact')) as { ok: true; value: FleetWire };
    expect(fleet.value.sessions.map((s) => s.key)).toEqual(t.gw.sessions.list().map((s) => s.key));
    expect(fleet.value.sessions.map((s) => s.key)).toContain('agent:main:subagent:between');
  });
});

function request(server: WebServer, channel: string, id = 1): Promise<unknown> {
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=${server.token}`, {
    headers: { Origin: `http://127.0.0.1:${server.port}` },
  });
  cleanups.push(() => ws.terminate());
  return new Promise((resolve, reject) => {
    ws.once('error', reject);
    ws.once('open', () => ws.send(JSON.stringify({ id, channel, args: {} })));
    ws.on('message', (data: WebSocket.RawData) => {
      const m = JSON.parse(data.toString()) as { type: string; id?: number; result?: unknown };
      if (m.type === 'result' && m.id === id) resolve(m.result);
    });
  });
}

describe('when the page is loading', () => {
  const html =
    '<!doctype html><link rel="icon" href="data:,"><script type="module" src="./assets/boot.js"></script>' +
    '<link rel="stylesheet" href="./assets/boot.css"><link rel="modulepreload" href="/assets/start.js">' +
    '<script src="https://elsewhere.example/x.js"></script>';

  it('lists the same-origin files the HTML links', () => {
    expect([...linkedFiles(html)]).toEqual(['/assets/boot.js', '/assets/boot.css', '/assets/start.js']);
  });

  it('builds the fleet once the page’s files are sent, not before', () => {
    let prepared = 0;
    const loads = createPageLoads(() => prepared++, 60_000);
    loads.pageServed(html);
    loads.fileServed('/assets/boot.js');
    loads.fileServed('/assets/other.js'); // not the page's
    loads.fileServed('/assets/boot.css');
    expect(prepared).toBe(0);
    loads.fileServed('/assets/start.js');
    expect(prepared).toBe(1);
    loads.fileServed('/assets/start.js');
    loads.socketOpened();
    expect(prepared).toBe(1);
  });

  it('does not wait for a file that never comes: the socket opening or the time limit starts it', async () => {
    let prepared = 0;
    const loads = createPageLoads(() => prepared++, 60_000);
    loads.pageServed(html);
    loads.socketOpened();
    expect(prepared).toBe(1);
    const timed = createPageLoads(() => prepared++, 5);
    timed.pageServed(html);
    await waitFor(() => prepared === 2, 1000, 'the time limit');
  });

  it('is built by the request itself when the request comes first, and only then', async () => {
    const { gw } = gateway();
    let built = 0;
    const fleet = createFleetSnapshots(gw, createMemoryDismissalStore(), () => ++built);
    fleet.prepare();
    expect(fleet.take().generatedAt).toBe(1);
    await nextTurn();
    expect(built).toBe(1);
  });
});
