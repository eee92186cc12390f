// A real ACP agent from the npm registry: Claude Code's ACP adapter
// (@zed-industries/claude-code-acp, pinned in devDependencies, the version of the ACP registry
// snapshot), run as Sightline runs any ACP child. Without a model account it cannot think, but it
// starts Claude Code, which connects to the MCP servers of session/new before any prompt. What this
// proves, from Sightline's side of the wire: the adapter's initialize answer advertised HTTP MCP,
// Sightline offered the server over HTTP with a credential of the child's own session, and Claude
// Code's MCP client (clientInfo "claude-code") used that credential to initialize and to list the
// tools: all eight, the registry's. It fails (never skips) when the package is not installed.
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { openTestGateway, tempDir, waitFor, type TestGateway } from '../helpers/gateway';

const require = createRequire(import.meta.url);
let t: TestGateway;
afterEach(() => t?.cleanup());

describe('a real ACP agent (Claude Code) receives Sightline`s MCP server', () => {
  it('gets it over HTTP in session/new and lists the tools with its own session`s credential', async () => {
    // Throws "Cannot find module" when the devDependency is missing: the test fails.
    const adapter = require.resolve('@zed-industries/claude-code-acp/dist/index.js');
    t = openTestGateway();
    const home = tempDir();
    t.gw.acp.profiles.save({
      id: 'claude-code',
      name: 'Claude Code',
      command: process.execPath,
      args: [adapter],
      env: {
        HOME: home, // a fresh Claude Code home: no account, no settings of this machine
        IS_SANDBOX: '1', // the adapter refuses some modes as root unless told it is sandboxed
        DISABLE_TELEMETRY: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        ANTHROPIC_API_KEY: '',
      },
      allowAgents: true, // issue 14.3: agents start only profiles allowed for agents
    });
    const r = await t.gw.tools.call('agent:main:main', 'sessions_spawn', {
      task: 'Say hello.',
      runtime: 'acp',
      profile: 'claude-code',
    });
    if (!r.ok) throw new Error(r.error);
    const key = (r.details as { childSessionKey: string }).childSessionKey;

    const listed = await waitFor(
      () => t.logger.lines.find((l) => l.msg === 'mcp: tools listed' && l.fields?.sessionKey === key),
      60_000,
      'Claude Code listing the tools',
    );
    const offered = t.logger.lines.find(
      (l) => l.msg === 'mcp: server offered to an ACP agent' && l.fields?.sessionKey === key,
    );
    expect(offered?.fields).toEqual({ sessionKey: key, transport: 'http' });
    expect(listed.fields).toEqual({ sessionKey: key, client: 'claude-code', count: 8 });
    expect(t.gw.mcp.list(key)).toEqual([
      expect.objectContaining({ sessionKey: key, label: 'acp', kind: 'acp', client: 'claude-code' }),
    ]);
    // The child goes with its session (and its agent with it).
    t.gw.sessions.delete(key);
    expect(t.gw.mcp.list(key)).toEqual([]);
  }, 90_000);
});
