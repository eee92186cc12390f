// Issue 14.3: what an agent may do is narrower than what the person may. Agents start only
// profiles the person allowed for agents; an agent's message into an adopted upstream session
// waits for the person's yes (the same inbox as ACP permission requests).
import { afterEach, describe, expect, it } from 'vitest';
import { createApiHandlers } from '../../electron/gateway/api/handlers';
import { CLAUDE_ID, relocate, writeClaude } from '../catalog/fixtures';
import { openTestGateway, tempDir, waitFor, type TestGateway } from '../helpers/gateway';
import { AGENT, fakeCli } from './helpers';
import { MAIN } from '../helpers/spec';

let t: TestGateway;
const restorePath = process.env.PATH;
afterEach(() => {
  process.env.PATH = restorePath;
  t?.cleanup();
});

describe('sessions_spawn with runtime "acp"', () => {
  it('starts only profiles allowed for agents', async () => {
    t = openTestGateway();
    const gw = t.gw;
    gw.acp.profiles.save({
      id: 'fixture',
      name: 'Fixture',
      command: process.execPath,
      args: [AGENT],
      env: {},
    });
    const before = gw.sessions.list().length;
    expect(
      await gw.tools.call(MAIN, 'sessions_spawn', { task: 'answer hi', runtime: 'acp', profile: 'fixture' }),
    ).toEqual({ ok: false, error: 'profile "fixture" is not allowed for agents' });
    // Without a profile named, an agent gets the first one it may start: none here.
    expect(await gw.tools.call(MAIN, 'sessions_spawn', { task: 'answer hi', runtime: 'acp' })).toEqual({
      ok: false,
      error: 'profile "fixture" is not allowed for agents',
    });
    expect(gw.sessions.list()).toHaveLength(before);

    gw.acp.profiles.save({
      id: 'allowed',
      name: 'Zed agent',
      command: process.execPath,
      args: [AGENT],
      env: {},
      allowAgents: true,
    });
    const r = await gw.tools.call(MAIN, 'sessions_spawn', { task: 'answer hi', runtime: 'acp' });
    expect(r).toMatchObject({ ok: true, details: { runtime: 'acp', profile: 'allowed' } });
  });
});

describe('sessions_send into an adopted session', () => {
  function adopt() {
    const claudeRoot = tempDir();
    relocate(writeClaude(claudeRoot), claudeRoot);
    t = openTestGateway({ catalogRoots: { claude: claudeRoot } });
    const cli = fakeCli('claude');
    process.env.PATH = cli.bin;
    const key = t.gw.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID }).key;
    return { gw: t.gw, key, cli };
  }

  it('is a permission request to the person; declined, the upstream CLI never runs', async () => {
    const { gw, key, cli } = adopt();
    const api = createApiHandlers(gw, { app: { name: 'S', version: 't', mode: 'web', dataDir: '' } });
    const sending = gw.tools.call(MAIN, 'sessions_send', { sessionKey: key, message: 'run the tests' });
    await waitFor(() => gw.acp.permissions.pending().length === 1, 2000, 'request');
    const listed = await api.dispatch('acp:permissions:list', {});
    expect(listed).toEqual({
      ok: true,
      value: [
        {
          id: expect.stringMatching(/^send-/),
          sessionKey: key,
          requestedBy: MAIN,
          title: `${MAIN} wants to send a message into this session (runs the claude CLI): "run the tests"`,
          options: [
            { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
            { optionId: 'decline', name: 'Decline', kind: 'reject_once' },
          ],
          createdAt: expect.any(Number),
        },
      ],
    });
    const id = gw.acp.permissions.pending()[0]!.id;
    expect(await api.dispatch('acp:permissions:respond', { requestId: id })).toEqual({
      ok: true,
      value: { resolved: true },
    });
    expect(await sending).toEqual({ ok: false, error: 'declined by the person' });
    expect(cli.calls()).toEqual([]);
  });

  it('allowed, it delivers as usual; the person’s own send needs no request', async () => {
    const { gw, key, cli } = adopt();
    const sending = gw.tools.call(MAIN, 'sessions_send', { sessionKey: key, message: 'run the tests' });
    await waitFor(() => gw.acp.permissions.pending().length === 1, 2000, 'request');
    gw.acp.permissions.respond(gw.acp.permissions.pending()[0]!.id, 'allow');
    expect(await sending).toEqual({
      ok: true,
      details: { status: 'delivered', sessionKey: key },
      text: JSON.stringify({ status: 'delivered', sessionKey: key }),
    });
    expect(cli.calls().map((c) => c.args)).toEqual([[`--resume=${CLAUDE_ID}`, '-p', 'run the tests']]);

    await gw.human.send(key, 'and the lint');
    expect(cli.calls()).toHaveLength(2);
    expect(gw.acp.permissions.pending()).toEqual([]);
  });
});
