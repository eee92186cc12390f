// The start check with the real Claude Code adapters as root with IS_SANDBOX=yes (issue 28.4): the
// adapters take any IS_SANDBOX as a sandbox and start Claude Code with
// --dangerously-skip-permissions, which refuses root unless IS_SANDBOX=1. The older adapter's CLI
// prints its fatal line and the adapter never answers session/new; the current one answers
// session/new with an internal error. Both installs must fail within seconds
// (not the 3-minute npx budget), say why and what to do, show stderr, and leave no process.
// Installed through npx from the npm registry, as a person's Add does; CI runs as root.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestGateway, type TestGateway } from '../helpers/gateway';
import { SNAPSHOT, startRegistryServer, type RegistryServer } from '../helpers/registry-server';

let t: TestGateway;
let server: RegistryServer;
const env0 = process.env.IS_SANDBOX;

beforeAll(async () => {
  process.env.IS_SANDBOX = 'yes';
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

const HINT = "refuses to run as root unless IS_SANDBOX=1 is set (Sightline's environment has IS_SANDBOX=yes)";

describe('Claude Code adapters started as root with IS_SANDBOX=yes', () => {
  it('runs as root here (the case this file is about)', () => {
    expect(process.getuid?.()).toBe(0);
  });

  it('the older adapter: its CLI fatal line ends the start check at once, with the hint', async () => {
    const mark = `cc-${process.pid}-${Date.now()}`;
    const began = Date.now();
    const err = await failure(
      t.gw.acp.registry.install('claude-code-acp', { env: { SIGHTLINE_TEST_MARK: mark } }),
    );
    const took = Date.now() - began;
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toContain(
      'it could not start: the agent reported a fatal error: --dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons',
    );
    expect(err.message).toContain(`Claude Code (older adapter) ${HINT}`);
    expect(err.message).toContain('Its stderr:');
    // npx may fetch the package first; the adapter itself fails in seconds, never the 180 s budget.
    expect(took).toBeLessThan(90_000);
    expect(t.gw.acp.profiles.list()).toEqual([]);
    expect(processesMarked(mark)).toEqual([]);
  }, 120_000);

  it('the current adapter: session/new fails, and the message says what to do', async () => {
    const mark = `ca-${process.pid}-${Date.now()}`;
    const err = await failure(
      t.gw.acp.registry.install('claude-acp', { env: { SIGHTLINE_TEST_MARK: mark } }),
    );
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toContain(
      'Claude Agent was not installed: it could not start: agent returned a protocol error: Internal error (code -32603)',
    );
    expect(err.message).toContain(`Claude Agent ${HINT}`);
    expect(t.gw.acp.profiles.list()).toEqual([]);
    expect(processesMarked(mark)).toEqual([]);
  }, 120_000);
});
