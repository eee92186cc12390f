// Reliability, part 4: security (issue 7 item 5).
//
// 1. Message content stays in the transcript. Human messages and sessions_send messages carrying
//    unique markers go through the gateway and run real (scripted) turns: a coordinator that
//    spawns workers from the marked task, a worker told something by a human, messages between
//    sessions with and without watch. The markers then appear in session_messages and nowhere
//    else: no row (any column) of session_state_events or any other table, no log line of the
//    gateway's logger, nothing printed to the console, no session_status answer.
// 2. Browser mode refuses other interfaces: startWebServer with any host but 127.0.0.1 throws, and
//    the listening socket takes no connection on ::1 or the machine's other addresses.
//    The token, Origin, Host and >1 MiB frame refusals are covered by test/e2e/web-security.test.ts;
//    here only what it leaves out: a WebSocket upgrade without a token query (the cookie is not
//    enough), a token one character off, and a frame of exactly 1 MiB, which is still served.
import crypto from 'node:crypto';
import net from 'node:net';
import os from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { MAX_PAYLOAD, startWebServer, type WebServer } from '../../electron/web/server';
import { openTestGateway, type TestGateway } from '../helpers/gateway';
import { sendJson, startWireServer, type WireServer } from '../providers/wire-server';

const COORDINATOR = 'agent:main:main';

describe('message content never reaches the signal log or the logs', () => {
  let t: TestGateway;
  let wire: WireServer;
  beforeAll(async () => {
    wire = await startWireServer();
  });
  afterAll(() => wire.close());
  afterEach(async () => {
    await t.gw.runtime.idle();
    t.cleanup();
    vi.restoreAllMocks();
  });

  it('keeps human and sessions_send messages in session_messages only', async () => {
    const printed: string[] = [];
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        printed.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
      });
    }
    t = openTestGateway();
    const { gw } = t;
    gw.agents.save({ id: 'main', providerSettings: { stepMs: '5', steps: '2' } });
    const marker = (what: string) => `zq${what}${crypto.randomBytes(8).toString('hex')}`;
    const M = {
      task: marker('task'),
      human: marker('human'),
      send: marker('send'),
      watched: marker('watched'),
      reply: marker('reply'),
      spawn: marker('spawn'),
      provider: marker('provider'),
    };

    // A human task to the coordinator: it spawns three workers whose tasks carry the marker.
    await gw.human.send(COORDINATOR, `Audit the payment flow ${M.task} thoroughly`);
    await gw.runtime.idle();
    const workers = gw.sessions
      .list()
      .filter((s) => s.parentKey === COORDINATOR)
      .map((s) => s.key);
    expect(workers).toHaveLength(3);
    const [w1, w2] = workers as [string, string, string];
    // (Spawning is read before the hung child below joins the coordinator's children.)

    // A person steps into a worker (recorded: the worker has a parent), then messages between
    // sessions, one of them registering a watch, and a further human turn that notifies it.
    await gw.human.send(w1, `Also look at ${M.human} before you finish`);
    const sent = await gw.tools.call(COORDINATOR, 'sessions_send', {
      sessionKey: w2,
      message: `Note ${M.send}`,
    });
    expect(sent.ok).toBe(true);
    const watched = await gw.tools.call(w1, 'sessions_send', {
      sessionKey: w2,
      message: `Please confirm ${M.watched}`,
      watch: true,
    });
    expect(watched.ok && watched.details).toMatchObject({ watched: true });
    await gw.runtime.idle();
    await gw.human.send(w2, `One more thing: ${M.reply}`);
    // A child that hangs past its bound: its failure is logged (so the log check below has lines).
    const hung = await gw.tools.call(COORDINATOR, 'sessions_spawn', {
      task: `[hang] wait for ${M.spawn}`,
      // Without a label the first 80 characters of the task become the session's label.
      label: 'waiter',
      timeoutSeconds: 1,
    });
    expect(hung.ok).toBe(true);
    // A model server that fails (without echoing the prompt): the failure is logged.
    wire.handle((_req, res) => sendJson(res, 500, { error: { message: 'upstream overloaded' } }));
    gw.agents.save({
      id: 'relay',
      provider: 'openai',
      providerSettings: { baseUrl: `${wire.origin}/v1`, model: 'x' },
      heartbeatSeconds: 0,
    });
    await gw.human.send('agent:relay:main', `Summarise ${M.provider} for me`);
    await gw.runtime.idle();
    expect(wire.requests.length).toBeGreaterThan(0);
    expect(JSON.stringify(wire.requests.at(-1)?.body)).toContain(M.provider);
    const status = await gw.tools.call(w1, 'session_status', { sessionKey: w2, changesSince: 0 });
    expect(status.ok).toBe(true);

    const count = (sql: string) => (gw.db.prepare(sql).get() as { n: number }).n;
    // The signal log recorded what happened…
    expect(count(`SELECT COUNT(*) AS n FROM session_state_events WHERE kind = 'child_spawned'`)).toBe(4);
    expect(count(`SELECT COUNT(*) AS n FROM session_state_events WHERE kind = 'run_failed'`)).toBe(1);
    expect(t.logger.lines.filter((l) => l.msg === 'runtime: run failed')).toHaveLength(1);
    expect(count(`SELECT COUNT(*) AS n FROM session_state_events WHERE kind = 'human_direct_message'`)).toBe(
      2,
    );
    const w2Human = gw.db
      .prepare(
        `SELECT MAX(sequence) AS n FROM session_state_events WHERE session_key = ? AND kind = 'human_direct_message'`,
      )
      .get(w2) as { n: number };
    expect(gw.state.cursor(w1, w2)?.material).toBe(w2Human.n); // the watch registered by the send

    // …and the markers are in the transcript, and only there.
    const tables = (
      gw.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all() as {
        name: string;
      }[]
    ).map((r) => r.name);
    expect(tables).toContain('session_state_events');
    expect(tables).toContain('session_messages');
    // The transcript's search index (FTS5 shadow tables of session_messages, migration 006) holds
    // the same words by design; it is part of the transcript, not of the signal log.
    const transcriptIndex = (table: string) => table.startsWith('session_messages_fts');
    const where = (m: string) => {
      const found: string[] = [];
      for (const table of tables.filter((t) => !transcriptIndex(t))) {
        for (const row of gw.db.prepare(`SELECT * FROM "${table}"`).all()) {
          if (JSON.stringify(row).includes(m)) found.push(table);
        }
      }
      return [...new Set(found)];
    };
    const lines = [
      ...t.logger.lines.map((l) => JSON.stringify(l)),
      ...printed,
      JSON.stringify(gw.notices.all()),
      JSON.stringify(status),
    ];
    for (const m of Object.values(M)) {
      expect({ marker: m, tables: where(m) }).toEqual({ marker: m, tables: ['session_messages'] });
      expect(lines.filter((l) => l.includes(m))).toEqual([]);
    }
  }, 30_000);
});

describe('browser mode: interfaces, tokens, frame size', () => {
  let t: TestGateway;
  let server: WebServer;
  beforeAll(async () => {
    t = openTestGateway();
    // Static files are not needed here: the WebSocket contract is what is tested.
    server = await startWebServer({ gateway: t.gw, rendererDir: t.dataDir });
  });
  afterAll(async () => {
    await server.close();
    t.cleanup();
  });

  it('refuses to bind anything but 127.0.0.1', async () => {
    for (const host of ['::', '0.0.0.0', 'localhost', '::1', '127.0.0.2']) {
      await expect(startWebServer({ gateway: t.gw, rendererDir: t.dataDir, host })).rejects.toThrow(
        `Browser mode binds 127.0.0.1 only (refused: ${host})`,
      );
    }
  });

  it('takes connections on 127.0.0.1 only', async () => {
    const connect = (host: string) =>
      new Promise<string>((resolve) => {
        const socket = net.connect({ host, port: server.port });
        socket.once('connect', () => {
          socket.destroy();
          resolve('connected');
        });
        socket.once('error', () => resolve('refused'));
      });
    expect(await connect('127.0.0.1')).toBe('connected');
    const others = [
      '::1',
      ...Object.values(os.networkInterfaces())
        .flat()
        .filter((a) => a && !a.internal && a.family === 'IPv4')
        .map((a) => a!.address),
    ];
    for (const host of others)
      expect({ host, result: await connect(host) }).toEqual({ host, result: 'refused' });
  });

  const origin = () => `http://127.0.0.1:${server.port}`;
  const upgrade = (query: string, headers: Record<string, string> = {}) =>
    new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws${query}`, { origin: origin(), headers });
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

  it('needs the token in the upgrade query: a cookie alone or a token one character off is refused', async () => {
    const cookie = `sightline_token=${server.token}`;
    expect(await upgrade('', { cookie })).toBe(401);
    const last = server.token.at(-1) === 'A' ? 'B' : 'A';
    expect(await upgrade(`?token=${server.token.slice(0, -1)}${last}`)).toBe(401);
    expect(await upgrade(`?token=${server.token}x`)).toBe(401);
    expect(await upgrade(`?token=${server.token}`)).toBe(101);
  });

  it('serves a request frame of exactly 1 MiB', async () => {
    const ws = await new Promise<WebSocket>((resolve, reject) => {
      const s = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=${server.token}`, { origin: origin() });
      s.on('open', () => resolve(s));
      s.on('error', reject);
    });
    const head = JSON.stringify({ id: 1, channel: 'app:info', args: { pad: '' } });
    const frame = head.replace('"pad":""', `"pad":"${'x'.repeat(MAX_PAYLOAD - head.length)}"`);
    expect(Buffer.byteLength(frame)).toBe(MAX_PAYLOAD);
    const answer = new Promise<unknown>((resolve) =>
      ws.once('message', (d) => resolve(JSON.parse(d.toString()))),
    );
    ws.send(frame);
    expect(await answer).toMatchObject({ type: 'result', id: 1 });
    ws.close();
  });
});
