// The MCP endpoint under hostile HTTP: every malformed, oversized, misaddressed or unauthenticated
// request gets a plain refusal, and the endpoint keeps serving a legitimate client afterwards.
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../electron/gateway/mcp/http';
import { openTestGateway, type TestGateway } from '../helpers/gateway';
import { httpClient } from './helpers';

let t: TestGateway;
let port = 0;
let secret = '';
let url = '';

beforeAll(async () => {
  t = openTestGateway();
  t.gw.sessions.create({ key: 'agent:main:worker' });
  const issued = await t.gw.mcp.issue('agent:main:worker');
  secret = issued.secret;
  url = issued.url;
  port = Number(new URL(url).port);
});
afterAll(() => t?.cleanup());

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

interface Answer {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

function request(opts: {
  method?: string;
  path?: string;
  headers?: Record<string, string | number>;
  body?: string | Buffer;
}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: opts.method ?? 'POST',
        path: opts.path ?? '/mcp',
        headers: {
          Host: `127.0.0.1:${port}`,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          Authorization: `Bearer ${secret}`,
          ...opts.headers,
        },
        agent: false,
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
        res.on('error', reject);
      },
    );
    // The server may answer and close before reading a large body: that is a refusal too.
    req.on('error', (err) => reject(err));
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** Raw bytes on a socket; resolves with what the server said before closing. */
function raw(bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let out = '';
    socket.on('data', (c) => (out += c.toString()));
    socket.on('error', () => resolve(out));
    socket.on('close', () => resolve(out));
    socket.setTimeout(1000, () => socket.destroy());
    socket.write(bytes);
  });
}

async function stillServing(): Promise<void> {
  const c = await httpClient(url, secret);
  const r = await c.client.listTools();
  expect(r.tools.length).toBeGreaterThan(0);
  await c.close();
}

describe('MCP endpoint: hostile HTTP', () => {
  it('refuses the wrong target, Host and Origin, and methods other than POST', async () => {
    for (const path of ['/', '/mcp/', '/mcp?x=1', '/MCP', '//[', '/%2e%2e/mcp'])
      expect((await request({ path, body: INIT })).status).toBe(404);
    for (const host of ['evil.example', `127.0.0.1:${port + 1}`, `127.0.0.1`, `[::1]:${port}`])
      expect((await request({ headers: { Host: host }, body: INIT })).status).toBe(403);
    for (const origin of [`http://127.0.0.1:${port}`, 'null', 'https://evil.example'])
      expect((await request({ headers: { Origin: origin }, body: INIT })).status).toBe(403);
    for (const method of ['GET', 'DELETE', 'PUT', 'OPTIONS']) {
      const r = await request({ method });
      expect(r.status).toBe(405);
      expect(r.headers.allow).toBe('POST');
    }
    await stillServing();
  });

  it('refuses missing, malformed and unknown credentials with 401 before reading the body', async () => {
    for (const authorization of [
      '',
      'Bearer',
      'Bearer ',
      `Basic ${secret}`,
      `Bearer ${secret}x`,
      `Bearer ${secret.slice(0, -1)}`,
      'Bearer slmcp_' + 'A'.repeat(43),
      `Bearer ${'x'.repeat(10_000)}`,
      `Bearer ${secret} ${secret}`,
    ]) {
      const r = await request({ headers: { Authorization: authorization }, body: INIT });
      expect(r.status).toBe(401);
      expect(r.headers['www-authenticate']).toBe('Bearer realm="sightline"');
      expect(JSON.parse(r.body)).toEqual({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Unauthorized: unknown or revoked credential' },
        id: null,
      });
    }
    await stillServing();
  });

  it('refuses wrong media types, oversized and unparsable bodies', async () => {
    expect((await request({ headers: { 'Content-Type': 'text/plain' }, body: INIT })).status).toBe(415);
    expect((await request({ headers: { 'Content-Type': 'application/jsonx' }, body: INIT })).status).toBe(
      415,
    );
    const big = Buffer.alloc(MAX_BODY_BYTES + 10, 0x20);
    const declared = await request({ body: big }).catch((err: Error) => ({ status: 413, body: err.message }));
    expect(declared.status).toBe(413);
    const chunked = await request({ headers: { 'Transfer-Encoding': 'chunked' }, body: big }).catch(
      (err: Error) => ({ status: 413, body: err.message }),
    );
    expect(chunked.status).toBe(413);
    for (const body of ['{', 'not json', '\u0000', '{"jsonrpc":"2.0",', '[1,2'])
      expect((await request({ body })).status).toBe(400);
    // JSON that is not JSON-RPC: the SDK refuses it, nothing throws. (An empty batch holds no
    // request, so there is nothing to answer: 202.)
    const statuses: Record<string, number> = {};
    for (const body of [
      'null',
      '"x"',
      '42',
      '{}',
      '[]',
      '{"jsonrpc":"2.0","method":7,"id":1}',
      '['.repeat(5000) + ']'.repeat(5000),
    ])
      statuses[body.slice(0, 40)] = (await request({ body })).status;
    expect(statuses).toEqual({
      null: 400,
      '"x"': 400,
      '42': 400,
      '{}': 400,
      '[]': 202,
      '{"jsonrpc":"2.0","method":7,"id":1}': 400,
      ['['.repeat(40)]: 400,
    });
    // Missing Accept: the SDK says 406.
    expect((await request({ headers: { Accept: 'text/html' }, body: INIT })).status).toBe(406);
    await stillServing();
  });

  it('survives malformed requests on raw sockets', async () => {
    const answers = await Promise.all([
      raw('GARBAGE\r\n\r\n'),
      raw(`POST //[ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`),
      raw(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: nope\r\n\r\n`),
      raw(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n`,
      ),
      raw(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX: ${'y'.repeat(20_000)}\r\n\r\n`),
      raw('\u0000\u0001\u0002\r\n\r\n'),
    ]);
    for (const a of answers) expect(a === '' || /^HTTP\/1\.1 4\d\d/.test(a)).toBe(true);
    await stillServing();
  });

  it('answers a burst of concurrent valid calls', async () => {
    const c = await httpClient(url, secret);
    const results = await Promise.all(
      Array.from({ length: 40 }, () => c.client.callTool({ name: 'sessions_list', arguments: {} })),
    );
    expect(results.every((r) => !r.isError)).toBe(true);
    await c.close();
  });
});
