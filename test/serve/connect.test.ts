// Browser mode connected to a shared gateway (issue 30.2): the page talks to 127.0.0.1 as
// always and every request and push goes through the pinned client to the serve gateway, as the
// page's person. The credential a redeemed invitation gave is kept (0600) and used next time.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startServeGateway, type ServeGateway } from '../../electron/serve/server';
import { startConnectedBrowserMode, type ConnectedBrowserMode } from '../../electron/web/connect';
import { collectingLogger, tempDir, waitFor } from '../helpers/gateway';

let serve: ServeGateway | undefined;
const pages: ConnectedBrowserMode[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const p of pages.splice(0)) await p.close();
  await serve?.close();
  dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true }));
});

const dir = () => {
  const d = tempDir();
  dirs.push(d);
  return d;
};

/** The page's side: the local WebSocket with the launch token, as renderer/src/lib/api.ts opens it. */
async function pageSocket(app: ConnectedBrowserMode) {
  const { port, token } = app.server;
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`, {
    origin: `http://127.0.0.1:${port}`,
  });
  const frames: {
    type: string;
    id?: number;
    result?: { ok: boolean; value?: unknown };
    batch?: { events: { type: string }[] };
  }[] = [];
  ws.on('message', (d) => frames.push(JSON.parse(d.toString())));
  await new Promise((r) => ws.once('open', r));
  let id = 0;
  const call = async (channel: string, args?: unknown) => {
    const n = ++id;
    ws.send(JSON.stringify({ id: n, channel, args }));
    const f = await waitFor(() => frames.find((x) => x.type === 'result' && x.id === n), 5000, channel);
    return f.result!;
  };
  return { ws, frames, call };
}

describe('browser mode --connect', () => {
  it('relays the page to the shared gateway as its person, and keeps the credential', async () => {
    serve = await startServeGateway({
      dataDir: dir(),
      host: '127.0.0.4',
      port: 0,
      gateway: { autoStart: false, logger: collectingLogger() },
    });
    const local = dir();
    const rendererDir = dir();
    fs.writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>Sightline</title>');
    const base = { url: serve.url, pin: serve.fingerprint, dataDir: local, rendererDir, version: '0.1.0' };
    await expect(startConnectedBrowserMode(base)).rejects.toThrow(
      `no credential for ${serve.url}: set SIGHTLINE_INVITE to the invitation the owner gave you`,
    );
    const first = await startConnectedBrowserMode({ ...base, invite: { code: serve.invite, name: 'Carol' } });
    pages.push(first);
    expect(first.account.id).toBe('user:carol');
    const saved = path.join(local, 'remote', 'credentials.json');
    expect(fs.statSync(saved).mode & 0o777).toBe(0o600);

    const page = await pageSocket(first);
    expect(await page.call('accounts:me')).toMatchObject({ ok: true, value: { id: 'user:carol' } });
    const goal = await page.call('goals:set', { sessionKey: 'agent:main:main', objective: 'from the page' });
    expect(goal.ok).toBe(true);
    expect(serve.host.gateway.goals.get('agent:main:main')?.objective).toBe('from the page');
    await waitFor(
      () =>
        page.frames.some((f) => f.type === 'push' && f.batch!.events.some((e) => e.type === 'state:event')),
      5000,
      'the push relayed',
    );
    page.ws.close();
    await first.close();
    pages.pop();

    // Next launch: no invitation needed, the same person.
    const second = await startConnectedBrowserMode(base);
    pages.push(second);
    expect(second.account.id).toBe('user:carol');
    // A wrong pin refuses, whatever is saved.
    await expect(
      startConnectedBrowserMode({
        ...base,
        pin: `sha256:${'1'.repeat(64)}`,
        invite: { code: 'inv_x', name: 'x' },
      }),
    ).rejects.toThrow('certificate pin mismatch');
  }, 30_000);
});

describe('a local gateway', () => {
  it('answers the account channels with unavailable, naming the shared gateway', async () => {
    const { openTestGateway } = await import('../helpers/gateway');
    const { createApiHandlers } = await import('../../electron/gateway/api/handlers');
    const t = openTestGateway();
    try {
      const api = createApiHandlers(t.gw, {
        app: { name: 'Sightline', version: '0', mode: 'web', dataDir: '' },
      });
      for (const channel of ['accounts:me', 'accounts:list', 'audit:list'])
        expect(await api.dispatch(channel, {})).toEqual({
          ok: false,
          error: {
            code: 'unavailable',
            message:
              'This is your own gateway: people and the audit view belong to a shared one (npm run serve)',
          },
        });
      expect(await api.dispatch('audit:list', { limit: 0 })).toMatchObject({
        ok: false,
        error: { code: 'invalid_argument' },
      });
    } finally {
      t.cleanup();
    }
  });
});
