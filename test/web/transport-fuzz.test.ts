// Browser mode at the transport level: raw sockets send malformed request lines, targets,
// headers, upgrade handshakes and WebSocket frames to a server running in its own process. Each
// gets its exact refusal, and afterwards the same process still serves the page and the contract.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { tempDir, waitFor } from '../helpers/gateway';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
let dir: string;
let child: ChildProcess;
let port: number;
let token: string;
let stderr = '';

beforeAll(async () => {
  dir = tempDir('sightline-fuzz-');
  const worker = path.join(dir, 'serve-worker.cjs');
  await build({
    entryPoints: [path.join(here, 'serve-worker.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    external: ['better-sqlite3'],
    outfile: worker,
    logLevel: 'warning',
  });
  const renderer = path.join(dir, 'renderer');
  fs.mkdirSync(path.join(renderer, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(renderer, 'index.html'), '<!doctype html><title>Sightline</title>');
  fs.writeFileSync(path.join(renderer, 'assets', 'app.js'), 'console.log(1)');
  child = spawn(process.execPath, [worker, path.join(dir, 'data'), renderer], {
    stdio: ['pipe', 'pipe', 'pipe'],
    cwd: root,
    env: { ...process.env, NODE_PATH: path.join(root, 'node_modules') },
  });
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  let out = '';
  child.stdout?.on('data', (c: Buffer) => {
    out += c.toString();
    const lines = out.split('\n');
    out = lines.pop()!;
    for (const line of lines) if (line) replies.push(JSON.parse(line) as Record<string, unknown>);
  });
  const ready = await new Promise<{ port: number; token: string }>((resolve, reject) => {
    waitFor(() => replies.shift(), 60_000, 'the server to listen').then(
      (r) => resolve(r as { port: number; token: string }),
      reject,
    );
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening: ${stderr}`)));
  });
  ({ port, token } = ready);
}, 60_000);

afterAll(() => {
  child?.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The worker's stdout lines, one JSON value each, in order. */
const replies: Record<string, unknown>[] = [];

/** The server's open connections now, asked over the worker's stdin. */
async function openConnections(): Promise<number> {
  child.stdin!.write('connections\n');
  const r = await waitFor(() => replies.shift(), 5000, 'the worker to answer');
  return r.connections as number;
}

const host = () => `127.0.0.1:${port}`;
const origin = () => `http://${host()}`;

/** Writes `bytes` on a fresh connection and collects everything until the server closes it. */
function exchange(
  bytes: Buffer | string,
  opts: { waitMs?: number; until?: (reply: Buffer) => boolean } = {},
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), opts.waitMs ?? 3000);
    socket.on('data', (c) => {
      chunks.push(c);
      if (opts.until?.(Buffer.concat(chunks))) socket.destroy();
    });
    socket.on('error', (err) => {
      // A reset after the server answered is fine: it answered.
      if (chunks.length === 0) reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    socket.write(bytes);
  });
}

const statusOf = (reply: Buffer) => Number(/^HTTP\/1\.1 (\d{3})/.exec(reply.toString('latin1'))?.[1] ?? 0);

function upgradeRequest(target: string, extra: Record<string, string> = {}, omit: string[] = []): string {
  const headers: Record<string, string> = {
    Host: host(),
    Origin: origin(),
    Connection: 'Upgrade',
    Upgrade: 'websocket',
    'Sec-WebSocket-Version': '13',
    'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
    ...extra,
  };
  for (const h of omit) delete headers[h];
  return `GET ${target} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
}

/** A client frame (masked unless told otherwise), with an optional forged 64-bit length. */
function frame(
  opcode: number,
  payload: Buffer | string,
  opts: { fin?: boolean; mask?: boolean; length64?: bigint } = {},
): Buffer {
  const body = Buffer.from(payload);
  const fin = opts.fin ?? true;
  const mask = opts.mask ?? true;
  const head: number[] = [(fin ? 0x80 : 0) | opcode];
  const m = mask ? 0x80 : 0;
  let lenBytes: Buffer;
  if (opts.length64 !== undefined || body.length > 0xffff) {
    lenBytes = Buffer.alloc(8);
    lenBytes.writeBigUInt64BE(opts.length64 ?? BigInt(body.length));
    head.push(m | 127);
  } else if (body.length > 125) {
    lenBytes = Buffer.alloc(2);
    lenBytes.writeUInt16BE(body.length);
    head.push(m | 126);
  } else {
    lenBytes = Buffer.alloc(0);
    head.push(m | body.length);
  }
  if (!mask) return Buffer.concat([Buffer.from(head), lenBytes, body]);
  const key = Buffer.from([1, 2, 3, 4]);
  const masked = Buffer.from(body.map((b, i) => b ^ key[i % 4]!));
  return Buffer.concat([Buffer.from(head), lenBytes, key, masked]);
}

interface ServerFrame {
  opcode: number;
  payload: Buffer;
}

/** Server frames (never masked) after the 101 handshake. */
function serverFrames(reply: Buffer): ServerFrame[] {
  const end = reply.indexOf('\r\n\r\n');
  let b = reply.subarray(end + 4);
  const frames: ServerFrame[] = [];
  while (b.length >= 2) {
    let len = b[1]! & 0x7f;
    let off = 2;
    if (len === 126) {
      len = b.readUInt16BE(2);
      off = 4;
    } else if (len === 127) {
      len = Number(b.readBigUInt64BE(2));
      off = 10;
    }
    if (b.length < off + len) break;
    frames.push({ opcode: b[0]! & 0x0f, payload: b.subarray(off, off + len) });
    b = b.subarray(off + len);
  }
  return frames;
}

/**
 * Opens a WebSocket with a raw handshake, sends `frames`, and returns the close code and the
 * text frames, once the server sent its close frame or `texts` text frames.
 */
async function afterHandshake(
  frames: Buffer[],
  texts = Infinity,
): Promise<{ status: number; close?: number; texts: string[] }> {
  const reply = await exchange(
    Buffer.concat([Buffer.from(upgradeRequest(`/ws?token=${token}`)), ...frames]),
    {
      until: (r) => {
        const f = serverFrames(r);
        return f.some((x) => x.opcode === 8) || f.filter((x) => x.opcode === 1).length >= texts;
      },
    },
  );
  const got = serverFrames(reply);
  const close = got.find((f) => f.opcode === 8);
  return {
    status: statusOf(reply),
    ...(close && close.payload.length >= 2 ? { close: close.payload.readUInt16BE(0) } : {}),
    texts: got.filter((f) => f.opcode === 1).map((f) => f.payload.toString()),
  };
}

function appInfoRoundTrip(): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${host()}/ws?token=${token}`, { origin: origin() });
    ws.on('open', () => ws.send(JSON.stringify({ id: 1, channel: 'app:info', args: {} })));
    ws.on('message', (data) => {
      resolve(JSON.parse(data.toString()));
      ws.close();
    });
    ws.on('error', reject);
  });
}

async function stillServing(): Promise<void> {
  expect(child.exitCode, stderr).toBeNull();
  const page = await exchange(
    `GET /?token=${token} HTTP/1.1\r\nHost: ${host()}\r\nConnection: close\r\n\r\n`,
  );
  expect(statusOf(page)).toBe(200);
  expect(await appInfoRoundTrip()).toMatchObject({ type: 'result', id: 1, result: { ok: true } });
}

describe('browser mode transport fuzz', () => {
  it('answers 400 to the upgrade any web page can send with new WebSocket("ws://…//[")', async () => {
    expect(statusOf(await exchange(upgradeRequest('//[', { Origin: 'http://evil.example' })))).toBe(400);
    await stillServing();
  });

  it('answers 400 to request targets that are not URLs, as plain requests and as upgrades', async () => {
    for (const target of ['//[', 'http://[', '//[::1', '*', '//%', 'http://', '//a:b@[x]/ws']) {
      const plain = `GET ${target} HTTP/1.1\r\nHost: ${host()}\r\nConnection: close\r\n\r\n`;
      expect([target, statusOf(await exchange(plain))]).toEqual([target, 400]);
      expect([target, statusOf(await exchange(upgradeRequest(target)))]).toEqual([target, 400]);
    }
    await stillServing();
  });

  it('refuses malformed request lines and headers (400, 431) and keeps serving', async () => {
    const cases: Array<[string, string, number]> = [
      ['garbage line', 'GARBAGE\r\n\r\n', 400],
      ['unknown version', `GET / HTTP/9.9\r\nHost: ${host()}\r\n\r\n`, 400],
      ['header without colon', `GET / HTTP/1.1\r\nHost: ${host()}\r\nBad Header\r\n\r\n`, 400],
      ['NUL in a header', `GET / HTTP/1.1\r\nHost: ${host()}\r\nX-A: a\0b\r\n\r\n`, 400],
      ['space before colon', `GET / HTTP/1.1\r\nHost : ${host()}\r\n\r\n`, 400],
      ['oversized header', `GET / HTTP/1.1\r\nHost: ${host()}\r\nX-A: ${'a'.repeat(64 * 1024)}\r\n\r\n`, 431],
      ['oversized target', `GET /${'a'.repeat(64 * 1024)} HTTP/1.1\r\nHost: ${host()}\r\n\r\n`, 431],
      [
        'chunked and a length',
        `GET / HTTP/1.1\r\nHost: ${host()}\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n`,
        400,
      ],
      [
        'two lengths',
        `GET / HTTP/1.1\r\nHost: ${host()}\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n`,
        400,
      ],
    ];
    for (const [name, bytes, status] of cases) {
      expect([name, statusOf(await exchange(bytes))]).toEqual([name, status]);
    }
    await stillServing();
  });

  it('refuses broken upgrade handshakes with their status and keeps serving', async () => {
    const t = `/ws?token=${token}`;
    const cases: Array<[string, string, number]> = [
      ['undecodable token', upgradeRequest('/ws?token=%ZZ%'), 401],
      ['no token', upgradeRequest('/ws'), 401],
      ['other path', upgradeRequest(`/elsewhere?token=${token}`), 404],
      ['foreign origin', upgradeRequest(t, { Origin: 'http://evil.example' }), 403],
      ['origin that is not a URL', upgradeRequest(t, { Origin: '//[' }), 403],
      ['no origin', upgradeRequest(t, {}, ['Origin']), 403],
      ['foreign host', upgradeRequest(t, { Host: 'evil.example' }), 403],
      ['no key', upgradeRequest(t, {}, ['Sec-WebSocket-Key']), 400],
      ['short key', upgradeRequest(t, { 'Sec-WebSocket-Key': 'abc' }), 400],
      ['bad version', upgradeRequest(t, { 'Sec-WebSocket-Version': '99' }), 400],
      ['not websocket', upgradeRequest(t, { Upgrade: 'h2c' }), 400],
      ['bad subprotocol list', upgradeRequest(t, { 'Sec-WebSocket-Protocol': 'a,,b, ,' }), 400],
      [
        'bad extension header',
        upgradeRequest(t, { 'Sec-WebSocket-Extensions': 'permessage-deflate; =;;' }),
        101,
      ],
    ];
    for (const [name, bytes, status] of cases) {
      expect([name, statusOf(await exchange(bytes, { waitMs: 500 }))]).toEqual([name, status]);
    }
    await stillServing();
  });

  it('survives clients that reset the connection in the middle of an upgrade', async () => {
    const targets = ['/elsewhere', '/ws?token=wrong', `/ws?token=${token}`, '//['];
    for (let i = 0; i < 40; i++) {
      await new Promise<void>((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => {
          s.write(upgradeRequest(targets[i % targets.length]!));
          // RST instead of FIN: the server's reply then meets a dead socket.
          setImmediate(() => s.resetAndDestroy());
        });
        s.on('error', () => undefined);
        s.on('close', () => resolve());
      });
    }
    // Every reset socket closed on the server's side: it met each one (a crash would show now).
    await waitFor(async () => (await openConnections()) === 0, 10_000, 'every reset connection closed');
    await stillServing();
  });

  it('closes on broken frames with the protocol codes and keeps serving', async () => {
    const ok = JSON.stringify({ id: 1, channel: 'app:info', args: {} });
    const cases: Array<[string, Buffer[], number]> = [
      ['unmasked client frame', [frame(1, ok, { mask: false })], 1002],
      ['reserved opcode', [frame(3, 'x')], 1002],
      ['continuation without a start', [frame(0, 'x')], 1002],
      ['ping over 125 bytes', [frame(9, 'p'.repeat(126))], 1002],
      ['fragmented control frame', [frame(9, 'p', { fin: false })], 1002],
      ['invalid UTF-8', [frame(1, Buffer.from([0xc3, 0x28]))], 1007],
      ['64-bit length beyond 2^53', [frame(2, 'x', { length64: 1n << 62n })], 1009],
      ['one frame over 1 MiB', [frame(1, 'x'.repeat(1024 * 1024 + 1))], 1009],
      [
        'fragments adding up to over 1 MiB',
        [frame(1, 'x'.repeat(600 * 1024), { fin: false }), frame(0, 'x'.repeat(600 * 1024))],
        1009,
      ],
      ['binary frame', [frame(2, ok)], 1003],
      ['not JSON', [frame(1, '{"id":')], 1007],
      ['JSON null', [frame(1, 'null')], 1007],
      ['JSON array', [frame(1, '[]')], 1007],
      ['id not an integer', [frame(1, '{"id":1e300,"channel":"app:info"}')], 1007],
      ['close with a reserved code', [frame(8, Buffer.from([0x03, 0xec]))], 1002],
    ];
    for (const [name, frames, code] of cases) {
      const r = await afterHandshake(frames);
      expect([name, r.status, r.close]).toEqual([name, 101, code]);
    }
    await stillServing();
  });

  it('answers odd but well-formed requests with error envelopes, and fragmented ones in full', async () => {
    const r = await afterHandshake(
      [
        frame(1, '{"id":1,"channel":"__proto__","args":{}}'),
        frame(1, '{"id":2,"channel":{"toString":1},"args":null}'),
        frame(1, `{"id":3,"channel":"sessions:get","args":{"sessionKey":"${'k'.repeat(100_000)}"}}`),
        frame(1, '{"id":4,"channel":"constructor"}'),
        frame(1, '{"id":5,', { fin: false }),
        frame(0, '"channel":"app:', { fin: false }),
        frame(0, 'info","args":{}}'),
      ],
      5,
    );
    const results = r.texts.map(
      (t) => JSON.parse(t) as { id: number; result: { ok: boolean; error?: { code: string } } },
    );
    expect(results.map((m) => [m.id, m.result.ok, m.result.error?.code])).toEqual([
      [1, false, 'unknown_channel'],
      [2, false, 'unknown_channel'],
      [3, false, 'invalid_argument'],
      [4, false, 'unknown_channel'],
      [5, true, undefined],
    ]);
    await stillServing();
  });

  it('keeps serving while a local process holds 1,000 slow connections (issue 29.5)', async () => {
    const held: net.Socket[] = [];
    try {
      for (let i = 0; i < 1000; i++) {
        const c = net.connect(port, '127.0.0.1');
        c.on('error', () => {});
        c.write(`GET / HTTP/1.1\r\nHost: ${host()}\r\nX-Slow: `);
        held.push(c);
      }
      // The server holds at most its cap of them (256); the rest are closed as they come.
      await waitFor(() => held.filter((c) => !c.destroyed).length <= 256, 10_000, 'the flood cut to the cap');
      await stillServing();
    } finally {
      for (const c of held) c.destroy();
    }
  });
});
