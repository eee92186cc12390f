// An agent outside Sightline (a terminal Claude Code or Codex, here the SDK's client) with a
// credential minted for one session: its pending notices lead its next tool result, once;
// session_notices returns them on demand; the credential survives a restart of the gateway (same
// port when free, same secret), and when the port had to change the list says so.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { systemNote } from '../../electron/gateway/runtime/system-note';
import { openTestGateway, type TestGateway } from '../helpers/gateway';
import { httpClient, texts, type McpTestClient } from './helpers';
import { noticeText } from '../helpers/spec';

const TERMINAL = 'agent:main:adopted:claude:11111111-2222-4333-8444-555555555555';
const OTHER = 'agent:main:other';
let t: TestGateway;
const clients: McpTestClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  t?.cleanup();
});

async function setup() {
  t = openTestGateway();
  t.gw.agents.save({ id: 'main', providerSettings: { stepMs: '1', steps: '1' } });
  t.gw.sessions.create({ key: TERMINAL, label: 'my terminal Claude Code' });
  t.gw.sessions.create({ key: OTHER });
  // 'agent': it reaches the other sessions of its agent (the default, 'tree', would not).
  const issued = await t.gw.mcp.issue(TERMINAL, { label: 'Claude Code', reach: 'agent' });
  const c = await httpClient(issued.url, issued.secret, 'claude-code');
  clients.push(c);
  return { gw: t.gw, issued, c };
}

describe('an agent outside Sightline', () => {
  it('gets its pending notice at the head of its next tool result, once', async () => {
    const { gw, c } = await setup();
    const sent = await c.call('sessions_send', { sessionKey: OTHER, message: 'please do X', watch: true });
    expect(sent.structuredContent).toMatchObject({ watched: true });
    const since = gw.state.version(OTHER);
    await gw.runtime.idle();
    await gw.human.send(OTHER, 'actually, do Y');
    await gw.runtime.idle();
    const line = noticeText(OTHER, since);
    expect(gw.notices.peek(TERMINAL).map((e) => e.text)).toEqual([line]);
    expect(gw.waker.lastWakeAt(TERMINAL)).toBeUndefined(); // nothing to wake: it has no turns here

    const inProcess = await gw.tools.call(TERMINAL, 'sessions_list', {});
    if (!inProcess.ok) throw new Error(inProcess.error);
    const r = await c.call('sessions_list', {});
    expect(texts(r)).toEqual([systemNote([line]), expect.any(String)]);
    expect(r.structuredContent).toMatchObject({ notices: [line], count: expect.any(Number) });
    // Drained as a turn drains: acknowledged, the queue empty, and the next result plain.
    const cursor = gw.state.cursor(TERMINAL, OTHER)!;
    expect(cursor.lastSeen).toBe(cursor.notified);
    expect(gw.notices.peek(TERMINAL)).toEqual([]);
    const again = await c.call('sessions_list', {});
    expect(texts(again)).toHaveLength(1);
    expect(again.structuredContent).not.toHaveProperty('notices');

    // It reconciles through the same server and gets the exact delta.
    const status = await c.call('session_status', { sessionKey: OTHER, changesSince: since });
    const expected = await gw.tools.call(TERMINAL, 'session_status', {
      sessionKey: OTHER,
      changesSince: since,
    });
    expect(status.structuredContent).toEqual((expected as { details: unknown }).details);
  });

  it('session_notices returns them on demand (and acknowledges them)', async () => {
    const { gw, c } = await setup();
    await c.call('sessions_send', { sessionKey: OTHER, message: 'watching you', watch: true });
    const since = gw.state.version(OTHER);
    await gw.runtime.idle();
    expect(texts(await c.call('session_notices'))).toEqual(['No pending notices.']);
    await gw.human.send(OTHER, 'a person steps in');
    await gw.runtime.idle();
    const r = await c.call('session_notices');
    expect(r.structuredContent).toEqual({ count: 1, notices: [noticeText(OTHER, since)] });
    expect(texts(r)).toEqual([noticeText(OTHER, since)]);
    expect(gw.notices.peek(TERMINAL)).toEqual([]);
    expect(texts(await c.call('sessions_list'))).toHaveLength(1);
  });

  it('still works after the gateway restarts: same port, same secret; a taken port is reported', async () => {
    const { issued, c } = await setup();
    await c.close();
    clients.length = 0;
    const port = Number(new URL(issued.url).port);

    // Restart: the endpoint listens again at once, on the same port, for the same secret.
    t.restart();
    const again = await httpClient(issued.url, issued.secret, 'claude-code');
    clients.push(again);
    expect((await again.call('sessions_list')).isError).toBeFalsy();
    expect(await t.gw.mcp.endpoint()).toEqual({ url: issued.url, port });
    await again.close();
    clients.length = 0;

    // The port is taken while Sightline is down: it listens elsewhere and says so.
    t.gw.close();
    const squatter = net.createServer();
    await new Promise<void>((r) => squatter.listen(port, '127.0.0.1', r));
    try {
      const gw = t.restart();
      const now = await gw.mcp.endpoint();
      expect(now.port).not.toBe(port);
      const [row] = gw.mcp.list(TERMINAL);
      expect(row).toMatchObject({ id: issued.id, issuedPort: port, kind: 'external' });
      const moved = await httpClient(now.url, issued.secret);
      clients.push(moved);
      expect((await moved.call('sessions_list')).isError).toBeFalsy();
    } finally {
      squatter.close();
    }
  });

  it('an ACP credential of an earlier run is gone after a restart', async () => {
    const { gw } = await setup();
    gw.sessions.create({ key: 'agent:main:acp:deadbeef' });
    const count = gw.db.prepare('SELECT count(*) AS n FROM mcp_credentials');
    gw.db
      .prepare(
        `INSERT INTO mcp_credentials (id, session_key, kind, label, secret_hash, port, created_at)
         VALUES ('old', 'agent:main:acp:deadbeef', 'acp', 'acp', 'x', 1, 1)`,
      )
      .run();
    expect(count.get()).toEqual({ n: 2 });
    const after = t.restart();
    expect(after.mcp.list().map((r) => r.kind)).toEqual(['external']);
  });
});
