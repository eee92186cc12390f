// Browser mode's trust boundary: token, Origin, Host, frame size, static files, CSP.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createGateway } from '../../electron/gateway/index';
import { MAX_PAYLOAD, startWebServer, type WebServer } from '../../electron/web/server';
import { ensureRenderer, RENDERER_DIR, tmpDir } from './helpers';

let server: WebServer;
let gateway: ReturnType<typeof createGateway>;

beforeAll(async () => {
  await ensureRenderer();
  gateway = createGateway({ dataDir: tmpDir('sightline-e2e-sec-'), autoStart: false });
  server = await startWebServer({ gateway, rendererDir: RENDERER_DIR });
}, 120_000);

afterAll(async () => {
  await server.close();
  gateway.close();
});

const origin = () => `http://127.0.0.1:${server.port}`;

function get(pathAndQuery: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>(
    (resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port: server.port, path: pathAndQuery, headers: { ...headers } },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        },
      );
      req.on('error', reject);
      req.end();
    },
  );
}

/** Resolves with the HTTP status of a refused upgrade, or 101 when it was accepted. */
function upgradeStatus(token: string, originHeader: string | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=${encodeURIComponent(token)}`, {
      ...(originHeader ? { origin: originHeader } : {}),
    });
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('open', () => {
      resolve(101);
      ws.close();
    });
    ws.on('error', (err) => {
      if (!String(err.message).includes('Unexpected server response')) reject(err);
    });
  });
}

function openSocket(): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=${server.token}`, { origin: origin() });
    ws.on('open', () => resolve(ws));
    ws.on('error', reject);
  });
}

function request(ws: WebSocket, id: number, channel: string, args?: unknown): Promise<unknown> {
  return new Promise((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const msg = JSON.parse(data.toString()) as { type: string; id?: number; result?: unknown };
      if (msg.type === 'result' && msg.id === id) {
        ws.off('message', onMessage);
        resolve(msg.result);
      }
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify({ id, channel, args }));
  });
}

describe('browser mode security', () => {
  it('binds 127.0.0.1 only and prints a URL with a 32-character base64url token', async () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/#token=${server.token}`);
    expect(server.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    await expect(startWebServer({ gateway, rendererDir: RENDERER_DIR, host: '0.0.0.0' })).rejects.toThrow(
      'Browser mode binds 127.0.0.1 only (refused: 0.0.0.0)',
    );
  });

  // Changed on purpose (issue 14.2): the page and assets are the public renderer build; the token
  // stays with the page (fragment, sessionStorage) and guards only the WebSocket upgrade.
  it('serves the page and its assets without a token and sets no cookie, with a strict CSP and MIME types', async () => {
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.headers['set-cookie']).toBeUndefined();
    expect(page.body).not.toContain(server.token);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe(
      `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; ` +
        `connect-src ws://127.0.0.1:${server.port}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'`,
    );
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect((await get(`/?token=${server.token}`)).headers['set-cookie']).toBeUndefined();
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(page.body)?.[1];
    expect(script).toBeDefined();
    const js = await get(`/${script}`);
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['set-cookie']).toBeUndefined();
  });

  it('refuses directory traversal, unknown types and a foreign Host header', async () => {
    expect((await get('/assets/..%2f..%2fpackage.json')).status).toBe(404);
    expect((await get('/..%2f..%2f..%2fetc%2fpasswd')).status).toBe(404);
    expect((await get('/assets/%2e%2e/%2e%2e/vite.config.ts')).status).toBe(404);
    expect((await get('/', { host: `localhost:${server.port}` })).status).toBe(403);
  });

  it('refuses a WebSocket upgrade with a wrong token (401) or a foreign Origin (403)', async () => {
    expect(await upgradeStatus('wrong-token', origin())).toBe(401);
    expect(await upgradeStatus('', origin())).toBe(401);
    expect(await upgradeStatus(server.token, 'http://evil.example')).toBe(403);
    expect(await upgradeStatus(server.token, `http://localhost:${server.port}`)).toBe(403);
    expect(await upgradeStatus(server.token, undefined)).toBe(403);
    expect(await upgradeStatus(server.token, origin())).toBe(101);
  });

  it('answers requests with result envelopes', async () => {
    const ws = await openSocket();
    const info = (await request(ws, 1, 'app:info', {})) as { ok: boolean; value: { mode: string } };
    expect(info).toEqual({
      ok: true,
      value: {
        name: 'Sightline',
        version: '0.0.0',
        mode: 'web',
        dataDir: '',
        // Where secrets live (issue 14.4): browser mode has no keyring and says so.
        secrets: { sealed: false, statement: expect.stringMatching(/^Browser mode has no access/) },
      },
    });
    expect(await request(ws, 2, 'sessions:get', { sessionKey: 'agent:main:nope' })).toEqual({
      ok: false,
      error: { code: 'not_found', message: 'Unknown sessionKey: agent:main:nope' },
    });
    expect(await request(ws, 3, 'sessions:get', { sessionKey: 7 })).toEqual({
      ok: false,
      error: { code: 'invalid_argument', message: 'sessionKey: sessionKey must be a string' },
    });
    expect(await request(ws, 4, 'fs:read', {})).toEqual({
      ok: false,
      error: { code: 'unknown_channel', message: 'Unknown channel: fs:read' },
    });
    const main = (await request(ws, 5, 'sessions:get', { sessionKey: 'agent:main:main' })) as {
      ok: boolean;
      value: { key: string; kind: string; stateVersion: number; runStatus: string };
    };
    expect(main.ok).toBe(true);
    expect(main.value).toMatchObject({
      key: 'agent:main:main',
      kind: 'main',
      stateVersion: 0,
      runStatus: 'none',
    });
    ws.close();
  });

  it('refuses a frame larger than 1 MiB by closing with 1009', async () => {
    const ws = await openSocket();
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    ws.send('x'.repeat(MAX_PAYLOAD + 1));
    expect(await closed).toBe(1009);
  });
});
