// Adding an agent (issue 28.4): the install plan says what the agent needs (API key variable, base
// URL variable, IS_SANDBOX=1 as root); the variables the person gives become the profile's sealed
// environment; the start check shows its progress and fails as soon as the agent says it cannot go
// on (Claude Code as root), with its stderr, and leaves no profile and no process.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AcpStartProgress } from '../../shared/ipc';
import { openTestGateway, waitFor, type TestGateway } from '../helpers/gateway';
import { serveFixtureRegistry, startRegistryServer, type RegistryServer } from '../helpers/registry-server';
import { agentNeeds } from '../../electron/gateway/runtime/acp/agent-needs';
import { parseRegistry } from '../../electron/gateway/installers/format';
import { SNAPSHOT } from '../helpers/registry-server';

let t: TestGateway | undefined;
let server: RegistryServer | undefined;
afterEach(async () => {
  t?.cleanup();
  t = undefined;
  await server?.close();
  server = undefined;
});

async function setup() {
  server = await startRegistryServer();
  serveFixtureRegistry(server);
  t = openTestGateway({ acpRegistryUrl: server.indexUrl, acpRegistryAllowLoopbackHttp: true });
  const progress: AcpStartProgress[] = [];
  t.gw.events.on((e) => {
    if (e.type === 'acp:progress') progress.push(e.progress);
  });
  return { gw: t.gw, progress };
}

/** Processes whose environment carries `mark` (the agent and anything it started). */
/** The error an install ended with (an install that succeeds fails the test). */
async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('the agent was installed');
}

function processesMarked(mark: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return fs.readFileSync(`/proc/${d}/environ`, 'utf8').includes(`SIGHTLINE_TEST_MARK=${mark}`);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('the bundled registry and what each agent needs', () => {
  const entries = parseRegistry(fs.readFileSync(SNAPSHOT, 'utf8')).entries;
  const byId = (id: string) => entries.find((e) => e.id === id)!;

  it("lists today's agents with the packages verified here", () => {
    const pkgs = Object.fromEntries(entries.map((e) => [e.id, e.npx ? [e.npx.package, ...e.npx.args] : []]));
    expect(pkgs['claude-acp']).toEqual(['@zed-industries/claude-agent-acp@0.23.1']);
    expect(pkgs['claude-code-acp']).toEqual(['@zed-industries/claude-code-acp@0.16.2']);
    expect(pkgs['codex-acp']).toEqual(['@zed-industries/codex-acp@0.16.0']);
    expect(pkgs.gemini).toEqual(['@google/gemini-cli@0.61.0', '--acp']);
    expect(pkgs.opencode).toEqual(['opencode-ai@1.18.33', 'acp']);
  });

  it('names the key and base URL variables, and IS_SANDBOX only for Claude as root', () => {
    expect(agentNeeds(byId('claude-acp'), true)).toMatchObject({
      apiKeyEnv: 'ANTHROPIC_API_KEY',
      baseUrlEnv: 'ANTHROPIC_BASE_URL',
      sandboxAsRoot: true,
    });
    expect(agentNeeds(byId('claude-acp'), false).sandboxAsRoot).toBeUndefined();
    expect(agentNeeds(byId('codex-acp'), true)).toMatchObject({ apiKeyEnv: 'OPENAI_API_KEY' });
    expect(agentNeeds(byId('codex-acp'), true).sandboxAsRoot).toBeUndefined();
    expect(agentNeeds(byId('gemini'), true)).toMatchObject({
      apiKeyEnv: 'GEMINI_API_KEY',
      baseUrlEnv: 'GOOGLE_GEMINI_BASE_URL',
    });
    expect(agentNeeds(byId('opencode'), true).apiKeyEnv).toBeUndefined();
    expect(agentNeeds(byId('auggie'), true)).toEqual({});
  });
});

describe('installing with the variables the agent needs', () => {
  it('stores the key, base URL and extra variables as the profile environment, and the plan names them', async () => {
    const { gw, progress } = await setup();
    const plan = await gw.acp.registry.plan('claude-acp');
    expect(plan.needs.apiKeyEnv).toBe('ANTHROPIC_API_KEY');
    expect(plan.needs.sandboxAsRoot).toBe(process.getuid?.() === 0 ? true : undefined);

    const profile = await gw.acp.registry.install('fixture-agent', {
      env: { FIXTURE_API_KEY: 'sk-fixture-1234', FIXTURE_BASE_URL: 'http://127.0.0.1:9/', EXTRA: 'x' },
    });
    expect(profile.env).toEqual({
      FIXTURE_MODE: 'registry',
      FIXTURE_API_KEY: 'sk-fixture-1234',
      FIXTURE_BASE_URL: 'http://127.0.0.1:9/',
      EXTRA: 'x',
    });
    // The start check's steps reached the person in order.
    expect(progress.map((p) => p.stage)).toEqual(['spawning', 'initialize', 'session/new', 'ready']);
    expect(progress.every((p) => p.agentId === 'fixture-agent')).toBe(true);
  });
});

describe('the start check', () => {
  it('fails at once when the agent reports a fatal error on stderr, shows it, and leaves nothing', async () => {
    const { gw, progress } = await setup();
    const mark = `root-hang-${process.pid}-${Date.now()}`;
    const began = Date.now();
    const err = await failure(
      gw.acp.registry.install('fixture-agent', {
        env: { ACP_FIXTURE_START: 'root-hang', SIGHTLINE_TEST_MARK: mark },
      }),
    );
    expect(err).toBeInstanceOf(Error);
    // Not the 30 s start budget of a binary: the fatal line ends the wait.
    expect(Date.now() - began).toBeLessThan(10_000);
    expect(err.message).toBe(
      'Fixture Agent was not installed: it could not start: the agent reported a fatal error: ' +
        'Error: --dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n' +
        'Its stderr:\n' +
        'Error: --dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons',
    );
    expect(progress.map((p) => p.stage)).toEqual(['spawning', 'initialize', 'session/new', 'stderr']);
    expect(gw.acp.profiles.list()).toEqual([]);
    expect(processesMarked(mark)).toEqual([]);
  });

  it('an install that fails its start check leaves no process of the agent`s tree and no half folder', async () => {
    const { gw } = await setup();
    const mark = `failed-install-${process.pid}-${Date.now()}`;
    const folder = path.join(t!.dataDir, 'acp-agents', 'fixture-agent');
    const err = await failure(
      gw.acp.registry.install('fixture-agent', {
        // The adapter starts its CLI in a process group of its own (the hardest case for a kill),
        // then says it cannot run as root, as claude-code-acp does without IS_SANDBOX=1.
        env: {
          ACP_FIXTURE_START: 'root-hang',
          ACP_FIXTURE_GRANDCHILD: 'own-group',
          SIGHTLINE_TEST_MARK: mark,
        },
      }),
    );
    expect(err.message).toMatch(
      /^Fixture Agent was not installed: it could not start: the agent reported a fatal error/,
    );
    // Read in /proc, not from the child handle: a re-parented CLI counts too.
    await waitFor(() => processesMarked(mark).length === 0, 5_000, 'the agent`s tree to end');
    expect(gw.acp.profiles.list()).toEqual([]);
    expect(fs.existsSync(folder) ? fs.readdirSync(folder) : []).toEqual([]);
  });

  it('names the agent that exits during the start, with its stderr', async () => {
    const { gw } = await setup();
    const err = await failure(
      gw.acp.registry.install('fixture-agent', { env: { ACP_FIXTURE_START: 'exit' } }),
    );
    expect(err.message).toMatch(
      /^Fixture Agent was not installed: it could not start: agent process exited with code \d+/,
    );
    expect(gw.acp.profiles.list()).toEqual([]);
  });
});
