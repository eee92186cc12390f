// Connection limits (issue 29.5), with real sockets: a local process holding hundreds of slow
// connections neither shuts the page nor an open WebSocket out of browser mode, nor an agent out
// of the MCP endpoint; slow requests time out; the listener never holds more than its cap.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ConnectionLimits } from '../../electron/gateway/connection-guard';
import { listenMcp } from '../../electron/gateway/mcp/http';
import { startWebServer, type WebServer } from '../../electron/web/server';
import { collectingLogger, openTestGateway, tempDir, waitFor, type TestGateway } from '../helpers/gateway';

const LIMITS: ConnectionLimits = {
  maxTotal: 24,
  maxPerPeer: 16,
  headersTimeoutMs: 400,
  requestTimeoutMs: 800,
  keepAliveTimeoutMs: 400,
};
const FLOOD = 300;

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** `n` connections that send half a request head and then nothing (slowloris). */
async function flood(port: number, n = FLOOD): Promise<net.Socket[]> {
  const sockets: net.Socket[] = [];
  for (let i = 0; i < n; i++) {
    const s = net.connect(port, '127.0.0.1');
    s.on('error', () => {});
    s.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    sockets.push(s);
  }
  cleanups.push(() => sockets.forEach((s) => s.destroy()));
  await Promise.all(
    sockets.map((s) => new Promise((r) => (s.connecting ? s.once('connect', r).once('close', r) : r(null)))),
  );
  return sockets;
}

const open = (sockets: net.Socket[]) => sockets.filter((s) => !s.destroyed && s.readyState === 'open').length;

async function webServer(): Promise<{ t: TestGateway; server: WebServer }> {
  const t = openTestGateway();
  const rendererDir = tempDir('sightline-flood-renderer-');
  fs.writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>Sightline</title>');
  const server = await startWebServer({ gateway: t.gw, rendererDir, limits: LIMITS });
  cleanups.push(
    () => t.cleanup(),
    () => server.close(),
  );
  return { t, server };
}

function connectWs(server: WebServer): Promise<WebSocket> {
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=${server.token}`, {
    headers: { Origin: `http://127.0.0.1:${server.port}` },
  });
  cleanups.push(() => ws.terminate());
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

function invoke(ws: WebSocket, id: number, channel: string): Promise<unknown> {
  return new Promise((resolve) => {
    const on = (data: WebSocket.RawData) => {
      const m = JSON.parse(data.toString()) as { type: string; id?: number; result?: unknown };
      if (m.type === 'result' && m.id === id) {
        ws.off('message', on);
        resolve(m.result);
      }
    };
    ws.on('message', on);
    ws.send(JSON.stringify({ id, channel, args: {} }));
  });
}

describe('browser mode under a local flood', () => {
  it('keeps serving the page and the open WebSocket; never holds more than its cap', async () => {
    const { server } = await webServer();
    const ws = await connectWs(server);
    const held = await flood(server.port);
    // The cap holds: most of the flood was closed at once (no file handles run out).
    await waitFor(() => open(held) <= LIMITS.maxTotal, 5000, 'flood cut down');
    const page = await fetch(`http://127.0.0.1:${server.port}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>Sightline</title>');
    expect(await invoke(ws, 1, 'app:info')).toMatchObject({ ok: true });
    expect(ws.readyState).toBe(WebSocket.OPEN);
    // A slow request head times out: every flood socket is gone soon after.
    await waitFor(() => open(held) === 0, 5000, 'slow heads timed out');
    expect(ws.readyState).toBe(WebSocket.OPEN);
  });
});

describe('the MCP endpoint under a local flood', () => {
  it('answers an agent with a credential while 300 slow connections are held', async () => {
    const http = await listenMcp<string>(
      {
        authenticate: (secret) => (secret === 'slmcp_good' ? 'caller' : undefined),
        serve: async (_caller, _req, res) => void res.end(JSON.stringify({ ok: true })),
      },
      { port: 0, logger: collectingLogger(), limits: LIMITS },
    );
    cleanups.push(() => http.close());
    const held = await flood(http.port);
    await waitFor(() => open(held) <= LIMITS.maxTotal, 5000, 'flood cut down');
    const call = () =>
      fetch(`http://127.0.0.1:${http.port}/mcp`, {
        method: 'POST',
        headers: { Authorization: 'Bearer slmcp_good', 'Content-Type': 'application/json' },
        body: '{}',
      });
    for (let i = 0; i < 3; i++) expect((await call()).status).toBe(200);
    await waitFor(() => open(held) === 0, 5000, 'slow heads timed out');
  });
});
