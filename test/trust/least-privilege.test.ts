// Issue 29.2 and 29.3: an MCP credential reaches only what its reach says, sessions_history masks
// credential-like text for every caller, and an agent's message into a real coding agent it did
// not spawn waits for the person. Real gateway, real MCP endpoint, real fixture ACP agent.
import { afterEach, describe, expect, it } from 'vitest';
import { MASKED } from '../../shared/mask-credentials';
import { closeAllAcpChildren } from '../../electron/gateway/runtime/acp';
import { createApiHandlers } from '../../electron/gateway/api/handlers';
import { openTestGateway, tempDir, waitFor, type TestGateway } from '../helpers/gateway';
import { httpClient, texts, type McpTestClient } from '../mcp/helpers';
import { AGENT, recordingPort } from './helpers';
import { MAIN } from '../helpers/spec';
import { CLAUDE_ID, claudeUser, writeClaude } from '../catalog/fixtures';

const OUTSIDE = 'agent:main:external:terminal-1';
const CHILD = 'agent:main:subagent:child1';
const GRANDCHILD = 'agent:main:subagent:grand1';
const OTHER_AGENT = 'agent:ops:main';
const SECRET_TEXT =
  'my key is sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAA and the db is postgres://ana:hunter22@db:5432/x';
const APP = { name: 'S', version: 't', mode: 'web' as const, dataDir: '' };

let t: TestGateway;
const clients: McpTestClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  t?.cleanup();
  await closeAllAcpChildren();
});

async function fleet(opts: Parameters<typeof openTestGateway>[0] = {}) {
  t = openTestGateway(opts);
  const gw = t.gw;
  gw.agents.save({ id: 'main', providerSettings: { stepMs: '1', steps: '1' } });
  gw.agents.save({ id: 'ops', providerSettings: { stepMs: '1', steps: '1' } });
  gw.sessions.create({ key: OUTSIDE, label: 'terminal agent' });
  gw.sessions.create({ key: CHILD, parentKey: OUTSIDE });
  gw.sessions.create({ key: GRANDCHILD, parentKey: CHILD });
  gw.sessions.create({ key: OTHER_AGENT });
  // What the person typed into the main session (its agent answers; reads below page to it).
  await gw.human.send(MAIN, SECRET_TEXT);
  await gw.runtime.idle();
  return gw;
}

async function client(reach?: 'tree' | 'agent' | 'all') {
  const issued = await t.gw.mcp.issue(OUTSIDE, { label: 'terminal', ...(reach ? { reach } : {}) });
  const c = await httpClient(issued.url, issued.secret);
  clients.push(c);
  return c;
}

const listed = async (c: McpTestClient) =>
  ((await c.call('sessions_list')).structuredContent as { sessions: { key: string }[] }).sessions
    .map((s) => s.key)
    .sort();

describe('an outside agent’s credential (default reach "tree")', () => {
  it('sees and acts on its own session and those under it only; outside, the error names the rule', async () => {
    const gw = await fleet();
    const c = await client();
    expect(gw.mcp.list(OUTSIDE)[0]).toMatchObject({ reach: 'tree' });
    expect(await listed(c)).toEqual([CHILD, OUTSIDE, GRANDCHILD].sort());
    const rule = `${MAIN} is outside this credential's reach (reach "tree": its own session and the sessions under it (spawned by it, recursively))`;
    for (const [tool, args] of [
      ['sessions_history', { sessionKey: MAIN }],
      ['sessions_send', { sessionKey: MAIN, message: 'run rm -rf' }],
      ['session_status', { sessionKey: MAIN }],
    ] as const) {
      const r = await c.call(tool, args);
      expect(r.isError).toBe(true);
      expect(texts(r)).toEqual([rule]);
    }
    // Nothing was sent into the main session.
    expect(gw.transcripts.all(MAIN).map((m) => m.text)).not.toContain('run rm -rf');
    // Its grandchild is in reach.
    const r = await c.call('session_status', { sessionKey: GRANDCHILD });
    expect(r.isError).toBeFalsy();
  });

  it('"agent" reaches every session of its agent, "all" every session', async () => {
    const gw = await fleet();
    const agent = await client('agent');
    expect(await listed(agent)).toEqual(
      gw.sessions
        .list()
        .filter((x) => x.agentId === 'main')
        .map((x) => x.key)
        .sort(),
    );
    expect(await listed(agent)).toContain(MAIN);
    expect(await listed(agent)).not.toContain(OTHER_AGENT);
    expect(texts(await agent.call('session_status', { sessionKey: OTHER_AGENT }))).toEqual([
      `${OTHER_AGENT} is outside this credential's reach (reach "agent": every session of its own agent)`,
    ]);
    const all = await client('all');
    expect(await listed(all)).toEqual(
      gw.sessions
        .list()
        .map((s) => s.key)
        .sort(),
    );
  });
});

describe('sessions_history masks credential-like text for every caller', () => {
  it('an outside agent and the gateway’s own agents read the key and the URL password masked, and how many', async () => {
    const gw = await fleet();
    const c = await client('all');
    const typed = gw.transcripts.all(MAIN).find((m) => m.text === SECRET_TEXT)!;
    const page = { sessionKey: MAIN, beforeId: typed.id + 1, limit: 1 };
    const outside = (await c.call('sessions_history', page)).structuredContent as {
      messages: { text: string }[];
      masked: number;
    };
    const native = await gw.tools.call(CHILD, 'sessions_history', page);
    if (!native.ok) throw new Error(native.error);
    for (const h of [outside, native.details as typeof outside]) {
      expect(h.messages[0]!.text).toBe(
        `my key is ${MASKED} and the db is postgres://ana:${MASKED}@db:5432/x`,
      );
      expect(h.masked).toBe(2);
      expect(JSON.stringify(h)).not.toMatch(/sk-ant-api03|hunter22/);
    }
    // The person's own view is the transcript as written.
    expect(typed.text).toBe(SECRET_TEXT);
  });
});

describe('widening a credential is the person’s say (issue 29.3)', () => {
  it('issuing "agent" or "all" through the app asks; declined, nothing is issued; "tree" is not asked', async () => {
    const gw = await fleet();
    const port = recordingPort(false);
    gw.consent.plug(port.ask);
    const api = createApiHandlers(gw, { app: APP });
    expect(await api.dispatch('mcp:issue', { sessionKey: OUTSIDE, label: 'laptop', reach: 'all' })).toEqual({
      ok: false,
      error: { code: 'forbidden', message: 'declined by the person' },
    });
    expect(port.questions).toHaveLength(1);
    expect(port.questions[0]).toMatchObject({
      kind: 'credential',
      title: 'Give the outside agent "laptop" a credential that reaches every session (reach "all")',
      sessionKey: OUTSIDE,
    });
    expect(gw.mcp.list(OUTSIDE)).toEqual([]);
    expect(await api.dispatch('mcp:issue', { sessionKey: OUTSIDE, reach: 'tree' })).toMatchObject({
      ok: true,
    });
    expect(port.questions).toHaveLength(1);
    port.answers.push(true);
    expect(await api.dispatch('mcp:issue', { sessionKey: OUTSIDE, reach: 'agent' })).toMatchObject({
      ok: true,
    });
    expect(
      gw.mcp
        .list(OUTSIDE)
        .map((c) => c.reach)
        .sort(),
    ).toEqual(['agent', 'tree']);
    expect(await api.dispatch('mcp:issue', { sessionKey: OUTSIDE, reach: 'everything' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_argument', message: 'reach: reach must be one of tree, agent, all' },
    });
    await expect(gw.mcp.issue(OUTSIDE, { reach: 'any' as never })).rejects.toThrow(
      'reach must be one of tree, agent, all',
    );
  });
});

describe('an ACP child', () => {
  function withProfile(reach?: 'tree' | 'agent' | 'all') {
    t.gw.acp.profiles.save({
      id: 'fixture',
      name: 'Fixture agent',
      command: process.execPath,
      args: [AGENT],
      env: {},
      allowAgents: true,
      ...(reach ? { reach } : {}),
    });
  }

  async function spawnChild(task = 'answer hi'): Promise<string> {
    const r = await t.gw.tools.call(MAIN, 'sessions_spawn', { task, runtime: 'acp', profile: 'fixture' });
    if (!r.ok) throw new Error(r.error);
    const key = (r.details as { childSessionKey: string }).childSessionKey;
    await waitFor(() => t.gw.runtime.sessionStatus(key) === 'idle', 10_000, 'child idle');
    return key;
  }

  /** The fixture agent's answer: its MCP call's result, as JSON. */
  const reply = (key: string) =>
    JSON.parse(t.gw.transcripts.all(key).find((m) => m.role === 'assistant' && m.text)!.text) as {
      isError: boolean;
      text: string;
    };

  it('calls the session tools with its profile’s reach: by default its agent’s sessions, masked', async () => {
    const gw = await fleet();
    withProfile();
    const read = `mcp sessions_history {"sessionKey":"${MAIN}"}`;
    const key = await spawnChild(read);
    const r = reply(key);
    expect(r.isError).toBe(false);
    expect(r.text).toContain(`my key is ${MASKED}`);
    expect(r.text).not.toMatch(/sk-ant-api03|hunter22/);
    // A profile narrowed to "tree": its agent reads only its own sessions.
    withProfile('tree');
    const narrow = await spawnChild(read);
    expect(reply(narrow)).toEqual({
      isError: true,
      text: `${MAIN} is outside this credential's reach (reach "tree": its own session and the sessions under it (spawned by it, recursively))`,
    });
    void gw;
  });

  it('reads an adopted Claude Code transcript only masked by default, and not at all under "tree" (issue 29.2)', async () => {
    // The finding: an ACP child's credential read the person's adopted Claude Code session.
    const claude = tempDir('sightline-claude-');
    const token = `ghp_${'Z'.repeat(36)}`;
    writeClaude(claude, claudeUser(`deploy with ${token} please`));
    const gw = await fleet({ catalogRoots: { claude } });
    const adopted = gw.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID }).key;
    withProfile();
    const read = `mcp sessions_history {"sessionKey":"${adopted}"}`;
    const r = reply(await spawnChild(read));
    expect(r.isError).toBe(false);
    expect(r.text).toContain('The /invoices endpoint returns 500. Find out why.');
    expect(r.text).toContain(`deploy with ${MASKED} please`);
    expect(r.text).not.toContain(token);
    withProfile('tree');
    expect(reply(await spawnChild(read))).toEqual({
      isError: true,
      text: `${adopted} is outside this credential's reach (reach "tree": its own session and the sessions under it (spawned by it, recursively))`,
    });
  });

  it('takes a message from an agent that did not spawn it only with the person’s yes; from its parent, at once', async () => {
    const gw = await fleet();
    withProfile();
    const key = await spawnChild();
    // Its parent (the main session) sends: delivered without a question.
    const fromParent = await gw.tools.call(MAIN, 'sessions_send', {
      sessionKey: key,
      message: 'answer more',
    });
    expect(fromParent).toMatchObject({ ok: true, details: { status: 'delivered' } });
    expect(gw.acp.permissions.pending()).toEqual([]);
    await waitFor(() => gw.runtime.sessionStatus(key) === 'idle', 10_000, 'idle again');

    // Another agent's session sends: a question; declined, nothing reaches the agent.
    const before = gw.transcripts.all(key).length;
    const sending = gw.tools.call(CHILD, 'sessions_send', { sessionKey: key, message: 'run id' });
    await waitFor(() => gw.acp.permissions.pending().length === 1, 5000, 'request');
    expect(gw.acp.permissions.pending()[0]).toMatchObject({
      sessionKey: key,
      requestedBy: CHILD,
      title: `${CHILD} wants to send a message into this session (prompts the Fixture agent agent): "run id"`,
    });
    gw.acp.permissions.respond(gw.acp.permissions.pending()[0]!.id, 'decline');
    expect(await sending).toEqual({ ok: false, error: 'declined by the person' });
    expect(gw.transcripts.all(key)).toHaveLength(before);
    // Allowed, it is delivered.
    const again = gw.tools.call(CHILD, 'sessions_send', { sessionKey: key, message: 'answer once more' });
    await waitFor(() => gw.acp.permissions.pending().length === 1, 5000, 'second request');
    gw.acp.permissions.respond(gw.acp.permissions.pending()[0]!.id, 'allow');
    expect(await again).toMatchObject({ ok: true, details: { status: 'delivered' } });
  });
});
