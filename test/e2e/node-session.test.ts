// Agents on a paired node from the New session dialog (issue 30.1), in browser mode: a machine
// paired over a real OpenSSH server on 127.0.0.1 (test/nodes/sshd.ts) is offered under "Runs on";
// the folder field checks the folder there; the consent names the node, the command line and the
// folder; the real fixture ACP agent runs under the node process and answers in the transcript.
// Settings → Nodes sets the agents' grace. A node whose link is down is listed, not choosable,
// and says why.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { nodeBundle } from '../nodes/helpers';
import { startSshd, type Sshd } from '../nodes/sshd';
import { waitFor } from '../helpers/gateway';
import {
  ensureRenderer,
  ROOT,
  screenshot,
  sel,
  tmpDir,
  type App,
  type Browser,
  saveFixtureProfile,
} from './helpers';
import { useAppInBrowser } from '../helpers/app-in-browser';

const AGENT = path.join(ROOT, 'test/fixtures/acp-agent/agent.mjs');

let app: App;
let browser: Browser & { errors: string[] };
let page: Page;
let sshd: Sshd;
let bundle = '';
let sshDir = '';
let folder = '';
let nodeId = '';

/** Processes of this test's programs: [pid, its parent, its argv]. */
function processes(): [number, number, string[]][] {
  return fs.readdirSync('/proc').flatMap((name): [number, number, string[]][] => {
    if (!/^\d+$/.test(name)) return [];
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      return [[Number(name), ppid, fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0')]];
    } catch {
      return [];
    }
  });
}

const fixtureAgents = () => processes().filter(([, , argv]) => argv.includes(AGENT));

beforeAll(async () => {
  sshDir = tmpDir('sightline-e2e-node-ssh-');
  folder = fs.realpathSync(tmpDir('sightline-e2e-node-project-'));
  // The renderer builds beside the node bundle (useAppInBrowser finds it built).
  [bundle] = await Promise.all([nodeBundle(), ensureRenderer()]);
  sshd = await startSshd(sshDir);
}, 120_000);

afterAll(async () => {
  sshd?.stop();
  for (const [pid] of fixtureAgents()) process.kill(pid, 'SIGKILL');
  for (const dir of [sshDir, folder]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

useAppInBrowser((s) => ({ app, browser, page } = s), {
  start: () => ({
    gateway: { nodes: { sshCommand: ['ssh', '-F', sshd.config()], bundle, helloTimeoutMs: 20_000 } },
  }),
  seed: async (app) => {
    nodeId = (await app.gateway.catalog.nodes.add({ ssh: 'sightline-test', name: 'build-box' })).id;
    saveFixtureProfile(app, 'Fixture agent');
  },
});

const byTestId = (id: string) => page.locator(`[data-testid="${id}"]`);

async function openDialog(): Promise<void> {
  await byTestId('new-session').click();
  await byTestId('new-session-dialog').waitFor();
}

describe('New session on a paired node', () => {
  it('offers the node under Runs on, for an ACP agent only', async () => {
    await openDialog();
    const runsOn = byTestId('start-node');
    await byTestId('start-runner').selectOption('agent:main');
    expect(await runsOn.isDisabled()).toBe(true);
    await byTestId('start-runner').selectOption('acp:fixture');
    expect(await runsOn.isDisabled()).toBe(false);
    expect(await runsOn.locator('option').allTextContents()).toEqual(['this machine', 'build-box']);
  });

  it('checks the folder on the node; the consent names the node, the command line and the folder; the agent answers from there', async () => {
    await byTestId('start-node').selectOption(nodeId);
    // A folder that is not on that machine is named as such, by the node.
    await byTestId('start-cwd').fill('/no/such/folder');
    await page
      .locator('[data-testid="start-cwd-check"]', {
        hasText: 'the folder does not exist on this node: /no/such/folder',
      })
      .waitFor();
    await byTestId('start-cwd').fill(folder);
    await page.locator('[data-testid="start-cwd-check"]', { hasText: `✓ ${folder}` }).waitFor();
    // No worktree choice on a node: it says it works in the folder itself.
    expect(await byTestId('start-isolated').count()).toBe(0);
    expect(await byTestId('start-node-note').textContent()).toContain(
      'worktrees on a node are not supported yet',
    );
    await byTestId('start-label').fill('On the build box');
    await byTestId('start-message').fill('answer: where do you run?');
    await screenshot(page, 'new-session-on-node');
    await byTestId('start-submit').click();

    const consent = byTestId('consent-prompt');
    await consent.waitFor({ timeout: 20_000 });
    expect(await consent.locator('[data-testid="consent-title"]').textContent()).toBe(
      'Run the ACP agent "Fixture agent" (its terminal commands run without asking you) on the node "build-box"?',
    );
    expect(await consent.locator('[data-testid="consent-program"]').textContent()).toBe(process.execPath);
    expect(await consent.locator('[data-testid="consent-args"] li').allTextContents()).toEqual([
      JSON.stringify(AGENT),
    ]);
    expect(await consent.locator('[data-testid="consent-cwd"]').textContent()).toBe(folder);
    await consent.locator('[data-testid="consent-allow"]').click();
    await consent.waitFor({ state: 'detached' });

    await byTestId('new-session-dialog').waitFor({ state: 'detached', timeout: 20_000 });
    const key = app.gateway.sessions.list().find((s) => s.label === 'On the build box')!.key;
    await page.locator(sel.pane(key)).waitFor();
    await page
      .locator(sel.msg('agent'), { hasText: 'You said: answer: where do you run?' })
      .waitFor({ timeout: 20_000 });
    expect(app.gateway.sessions.get(key)).toMatchObject({ cwd: folder });
    // The agent runs under the node process the SSH login started, not under this gateway.
    const agents = fixtureAgents();
    expect(agents).toHaveLength(1);
    expect(agents[0]![1]).not.toBe(process.pid);
    const parent = processes().find(([pid]) => pid === agents[0]![1])!;
    expect(parent[2].join(' ')).toContain('--stdio');
    app.gateway.sessions.delete(key);
    await waitFor(() => fixtureAgents().length === 0, 10_000, 'the agent on the node to end');
  });

  it('Settings → Nodes sets how long an agent outlives a dropped link (kept by the gateway)', async () => {
    await byTestId('nav-settings').click();
    await page.locator('[data-testid="nodes"][data-ready="true"]').waitFor();
    const grace = byTestId('agent-grace-seconds');
    expect(await grace.inputValue()).toBe('120');
    await grace.fill('45');
    await grace.blur();
    await expect.poll(() => app.gateway.person.preferences.get().nodes.agentGraceSeconds).toBe(45);
    // Out of bounds: refused, the field shows the kept value again.
    await grace.fill('100000');
    await grace.blur();
    await expect.poll(() => grace.inputValue()).toBe('45');
    expect(app.gateway.person.preferences.get().nodes.agentGraceSeconds).toBe(45);
  });

  it('a node whose link is down is listed but cannot be chosen, and says why', async () => {
    sshd.stop();
    for (const [pid, ppid, argv] of processes())
      if (ppid === process.pid && argv[0] === 'ssh' && argv.includes('sightline-test'))
        process.kill(pid, 'SIGKILL');
    await waitFor(
      () => app.gateway.catalog.nodes.list()[0]?.state === 'offline',
      15_000,
      'the node to go offline',
    );
    await openDialog();
    await byTestId('start-runner').selectOption('acp:fixture');
    const option = page.locator('[data-testid="start-node"] option[data-state="offline"]');
    await expect.poll(() => option.count()).toBe(1);
    expect(await option.isDisabled()).toBe(true);
    expect(await option.textContent()).toMatch(/^build-box — not connected: .+/);
    expect(browser.errors).toEqual([]);
  });
});
