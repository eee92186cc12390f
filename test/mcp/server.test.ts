// The session tools over MCP: the same registry as `tools.call`, through the official SDK client
// over streamable HTTP and over the stdio shim. Identity is the credential's session, never an
// argument; revoking or deleting ends a credential on its next request.
import { afterEach, describe, expect, it } from 'vitest';
import { openTestGateway, type TestGateway } from '../helpers/gateway';
import { httpClient, stdioClient, texts, type McpTestClient } from './helpers';
import { MAIN } from '../helpers/spec';

const WORKER = 'agent:main:worker';
const OTHER = 'agent:main:other';
/** The SDK's StreamableHTTPError for our 401 answer. */
const UNAUTHORIZED = {
  code: 401,
  message: expect.stringContaining('Unauthorized: unknown or revoked credential'),
};

let t: TestGateway;
const clients: McpTestClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  t?.cleanup();
});

async function setup() {
  t = openTestGateway();
  t.gw.sessions.create({ key: WORKER, label: 'worker' });
  t.gw.sessions.create({ key: OTHER, label: 'other' });
  return t.gw;
}

async function connect(sessionKey: string, via: 'http' | 'stdio' = 'http') {
  // 'agent': the other sessions of its agent are in reach (the default, 'tree', is tested apart).
  const issued = await t.gw.mcp.issue(sessionKey, { label: 'test', reach: 'agent' });
  const c =
    via === 'http'
      ? await httpClient(issued.url, issued.secret)
      : await stdioClient(issued.command!, issued.secret);
  clients.push(c);
  return { ...issued, c };
}

describe('MCP server: one registry, two transports', () => {
  for (const via of ['http', 'stdio'] as const) {
    it(`lists exactly the registry's tools and maps results and errors (${via})`, async () => {
      await setup();
      const { c } = await connect(WORKER, via);
      const { tools } = await c.client.listTools();
      expect(tools.map((x) => x.name).sort()).toEqual(
        [
          'goal_clear',
          'goal_set',
          'session_notices',
          'session_status',
          'sessions_history',
          'sessions_list',
          'sessions_send',
          'sessions_spawn',
        ].sort(),
      );
      const status = tools.find((x) => x.name === 'session_status')!;
      expect(status.inputSchema).toMatchObject({ type: 'object', required: ['sessionKey'] });

      // A result: the tool's text as the one text content, its details as structuredContent.
      const inProcess = await t.gw.tools.call(WORKER, 'session_status', { sessionKey: OTHER });
      if (!inProcess.ok) throw new Error(inProcess.error);
      const r = await c.call('session_status', { sessionKey: OTHER });
      expect(r.isError).toBeFalsy();
      expect(texts(r)).toEqual([inProcess.text]);
      expect(r.structuredContent).toEqual(inProcess.details);

      // Errors: isError with the tool's exact text, the spec's strings included.
      const unknown = await c.call('session_status', { sessionKey: 'agent:main:nope' });
      expect(unknown).toMatchObject({ isError: true });
      expect(texts(unknown)).toEqual(['Unknown sessionKey: agent:main:nope']);
      const badSince = await c.call('session_status', { sessionKey: OTHER, changesSince: -1 });
      expect(texts(badSince)).toEqual(['changesSince must be a non-negative integer']);
      const noTool = await c.call('no_such_tool', {});
      expect(texts(noTool)).toEqual(['Unknown tool: no_such_tool']);
    });
  }

  it('acts as the credential`s session: a forged caller argument is ignored', async () => {
    const gw = await setup();
    const { c } = await connect(WORKER);
    const r = await c.call('goal_set', {
      objective: 'ship it',
      callerSessionKey: MAIN,
      caller: MAIN,
      sessionKey: MAIN,
    });
    expect(r.isError).toBeFalsy();
    expect(gw.goals.get(WORKER)?.objective).toBe('ship it');
    expect(gw.goals.get(MAIN)).toBeUndefined();
    const event = gw.state.changesSince(WORKER, 0).events.at(-1)!;
    expect(event).toMatchObject({ kind: 'goal_changed', actorType: 'agent', actorId: WORKER });
  });

  it('sessions_send with watch: true registers the credential`s session as the watcher', async () => {
    const gw = await setup();
    const { c } = await connect(WORKER);
    const r = await c.call('sessions_send', { sessionKey: OTHER, message: 'hello', watch: true, key: MAIN });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({ status: 'delivered', sessionKey: OTHER, watched: true });
    expect(gw.state.cursor(WORKER, OTHER)).toBeDefined();
    expect(gw.state.cursor(MAIN, OTHER)).toBeUndefined();
    const self = await c.call('sessions_send', { sessionKey: WORKER, message: 'me', watch: true });
    expect(self.structuredContent).toMatchObject({ watched: false });
    await gw.runtime.idle();
  });

  it('a secret acts only as its own session; revoking or deleting ends it on the next call (HTTP 401)', async () => {
    const gw = await setup();
    const a = await connect(WORKER);
    const b = await connect(OTHER);
    await a.c.call('goal_set', { objective: 'from a' });
    await b.c.call('goal_set', { objective: 'from b' });
    expect(gw.goals.get(WORKER)?.objective).toBe('from a');
    expect(gw.goals.get(OTHER)?.objective).toBe('from b');

    gw.mcp.revoke(a.id);
    await expect(a.c.call('sessions_list')).rejects.toMatchObject(UNAUTHORIZED);
    // The other credential is untouched.
    expect((await b.c.call('sessions_list')).isError).toBeFalsy();

    gw.sessions.delete(OTHER);
    await expect(b.c.call('sessions_list')).rejects.toMatchObject(UNAUTHORIZED);
    expect(gw.mcp.list()).toEqual([]);
    // A session made again under the same key does not revive the old secret.
    gw.sessions.create({ key: OTHER });
    await expect(httpClient(b.url, b.secret)).rejects.toMatchObject(UNAUTHORIZED);
  });

  it('a session deleted while its credential is being issued gets none', async () => {
    const gw = await setup();
    // The endpoint starts on first use; the session goes before it listens.
    const issuing = gw.mcp.issue(WORKER);
    gw.sessions.delete(WORKER);
    await expect(issuing).rejects.toMatchObject({ message: `Unknown sessionKey: ${WORKER}` });
    expect(gw.mcp.list()).toEqual([]);
  });

  it('over stdio, a revoked credential is an error result the agent can read', async () => {
    const gw = await setup();
    const { c, id } = await connect(WORKER, 'stdio');
    expect((await c.call('sessions_list')).isError).toBeFalsy();
    gw.mcp.revoke(id);
    await expect(c.call('sessions_list')).rejects.toThrow(
      'Sightline refused the credential (401): it was revoked or its session was deleted',
    );
  });

  it('mcp.list shows each credential`s session, label, last use and client name, never a secret', async () => {
    let clock = 1_000_000;
    t = openTestGateway({ now: () => clock });
    t.gw.sessions.create({ key: WORKER });
    const issued = await t.gw.mcp.issue(WORKER, { label: 'Claude Code in ~/src' });
    expect(issued.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(issued.secret).toMatch(/^slmcp_[A-Za-z0-9_-]{43}$/);
    expect(issued.command?.at(-1)).toBe(issued.url);
    expect(t.gw.mcp.list()).toEqual([
      {
        id: issued.id,
        sessionKey: WORKER,
        label: 'Claude Code in ~/src',
        createdAt: 1_000_000,
        kind: 'external',
        issuedPort: Number(new URL(issued.url).port),
        reach: 'tree',
      },
    ]);
    clock = 2_000_000;
    const c = await httpClient(issued.url, issued.secret, 'claude-code');
    clients.push(c);
    const [row] = t.gw.mcp.list(WORKER);
    expect(row).toMatchObject({ lastUsedAt: 2_000_000, client: 'claude-code' });
    expect(JSON.stringify(t.gw.mcp.list())).not.toContain(issued.secret);
    const stored = t.gw.db.prepare('SELECT * FROM mcp_credentials').all();
    expect(JSON.stringify(stored)).not.toContain(issued.secret);
    await expect(t.gw.mcp.issue('agent:main:nope')).rejects.toThrow('Unknown sessionKey: agent:main:nope');
    await expect(t.gw.mcp.issue('global')).rejects.toThrow(/agent-qualified/);
  });
});
