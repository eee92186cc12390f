// A real ACP agent from the registry: Claude Code's ACP adapter
// (`@zed-industries/claude-code-acp@0.16.2`, the registry snapshot's npx entry), installed through
// npx from the npm registry (network to registry.npmjs.org is needed, as in CI). It speaks ACP
// offline up to its first prompt; the prompt then fails because there is no model access here:
// that is a real error path, and the run must end failed with the agent's cause. When npx cannot
// install the agent, this test fails (it never skips).
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestGateway, tempDir, waitFor, type TestGateway } from '../helpers/gateway';
import { SNAPSHOT, startRegistryServer, type RegistryServer } from '../helpers/registry-server';

let t: TestGateway;
let server: RegistryServer;
const env0 = process.env.IS_SANDBOX;

beforeAll(async () => {
  // Claude Code refuses to run as root unless told it is in a sandbox (its documented switch).
  process.env.IS_SANDBOX = '1';
  server = await startRegistryServer();
  server.routes.set('/registry/v1/latest/registry.json', fs.readFileSync(SNAPSHOT));
  t = openTestGateway({ acpRegistryUrl: server.indexUrl, acpRegistryAllowLoopbackHttp: true });
});

afterAll(async () => {
  t?.cleanup();
  await server?.close();
  if (env0 === undefined) delete process.env.IS_SANDBOX;
  else process.env.IS_SANDBOX = env0;
});

describe('a real ACP agent from the npm registry', () => {
  it('installs Claude Code through npx, starts a session, and its failing first prompt is a failed run', async () => {
    const gw = t.gw;
    const plan = await gw.acp.registry.plan('claude-code-acp');
    expect(plan).toMatchObject({
      distribution: 'npx',
      command: 'npx',
      args: ['--yes', '@zed-industries/claude-code-acp@0.16.2'],
    });
    expect(plan.problem).toBeUndefined();
    // npx fetches the package on the first start (the install probe): allow it minutes.
    const profile = await gw.acp.registry.install('claude-code-acp');
    expect(profile).toMatchObject({
      id: 'claude-code-acp',
      name: 'Claude Code (older adapter)',
      command: 'npx',
    });
    expect(gw.acp.registry.installs.get('claude-code-acp')).toMatchObject({
      distribution: 'npx',
      source: '@zed-industries/claude-code-acp@0.16.2',
    });

    const cwd = fs.realpathSync(tempDir());
    try {
      const info = await gw.sessions.start({
        acpProfileId: 'claude-code-acp',
        cwd,
        message: 'Say hello',
        parentKey: 'agent:main:main',
      });
      expect(info.key).toMatch(/^agent:main:acp:/);
      await waitFor(() => gw.runtime.sessionStatus(info.key) === 'failed', 120_000, 'the failed first run');
      const [run] = gw.runs.list(info.key);
      expect(run).toMatchObject({ status: 'failed', outcome: 'error' });
      expect(run!.error).toBe('agent returned a protocol error: Authentication required (code -32000)');
      // The parent was told of the person's first message (one notice), the failure is logged.
      const events = gw.state.changesSince(info.key, 0).events;
      expect(events.map((e) => e.kind)).toEqual(['child_spawned', 'human_direct_message', 'run_failed']);
      expect(gw.state.cursor('agent:main:main', info.key)?.notified).toBe(events[1]!.sequence);
    } finally {
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  }, 420_000);
});
