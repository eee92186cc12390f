// The supervisor's view in the browser (issue 17): a run streaming before it ends, every status
// on the fleet row (an agent crash and a gateway restart included), a failed run with its reason
// in the session and the inbox, the window title counting what waits, and the notification for a
// waiting session (Notification API, permission granted). Saves the README's screenshots.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createGateway } from '../../electron/gateway/index';
import { createDismissalStore } from '../../electron/gateway/person/dismissals';
import { startWebServer, type WebServer } from '../../electron/web/server';
import { ensureRenderer, openBrowser, RENDERER_DIR, row, screenshot, tmpDir, type Browser } from './helpers';

const AGENT = path.resolve('test/fixtures/acp-agent/agent.mjs');
const dataDir = tmpDir('sightline-e2e-supervision-');
let gateway: ReturnType<typeof createGateway>;
let server: WebServer;
let browser: Browser & { errors: string[] };
let page: Page;

async function start(): Promise<void> {
  gateway = createGateway({
    dataDir,
    autoStart: true,
    catalogRoots: { claude: dataDir, codex: dataDir, opencode: dataDir, pi: dataDir },
  });
  server = await startWebServer({
    gateway,
    rendererDir: RENDERER_DIR,
    dismissals: createDismissalStore(gateway.db),
    app: { version: 'e2e', dataDir },
  });
}

async function stop(): Promise<void> {
  await server.close();
  gateway.close();
}

beforeAll(async () => {
  await ensureRenderer();
  await start();
  // Scripted workers of agent `live`: 4 steps of 1.2 s, streaming 6 tokens a step.
  gateway.agents.save({
    id: 'live',
    name: 'Live',
    provider: 'scripted',
    providerSettings: { stepMs: '1200', steps: '4', tokensPerStep: '6' },
    heartbeatSeconds: 0,
  });
  gateway.acp.profiles.save({
    id: 'fixture',
    name: 'Fixture',
    command: process.execPath,
    args: [AGENT],
    env: {},
    // Agents may start only profiles the person allowed for agents (issue 14.3).
    allowAgents: true,
  });
  browser = await openBrowser(server.url);
  page = browser.page;
  // Notifications: allowed for this page, and recorded as the page creates them.
  await browser.context.grantPermissions(['notifications'], { origin: new URL(server.url).origin });
  await browser.context.addInitScript(() => {
    const Real = window.Notification;
    const shown: { title: string; body: string; note: Notification }[] = [];
    (window as unknown as { shownNotifications: typeof shown }).shownNotifications = shown;
    class Recorded extends Real {
      constructor(title: string, opts?: NotificationOptions) {
        super(title, opts);
        shown.push({ title, body: opts?.body ?? '', note: this });
      }
    }
    window.Notification = Recorded as typeof Notification;
  });
  await page.reload();
  await page.locator('[data-testid="app"][data-ready="true"]').waitFor();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stop();
});

const status = (key: string) =>
  row(page, key).locator('[data-testid="session-status"]').getAttribute('data-status');
const shown = () =>
  page.evaluate(() =>
    (window as unknown as { shownNotifications: { title: string; body: string }[] }).shownNotifications.map(
      (n) => `${n.title} | ${n.body}`,
    ),
  );

async function spawnAcp(task: string): Promise<string> {
  const r = await gateway.tools.call('agent:main:main', 'sessions_spawn', {
    task,
    runtime: 'acp',
    profile: 'fixture',
  });
  if (!r.ok) throw new Error(r.error);
  return (r.details as { childSessionKey: string }).childSessionKey;
}

describe('live output and status', () => {
  it('streams a run into the open transcript before it ends; the fleet row shows its last line', async () => {
    const key = 'agent:live:subagent:notes';
    gateway.sessions.create({ key, label: 'Notes writer' });
    await row(page, key).click();
    await page.locator('[data-testid="composer-input"]').fill('Write the release notes');
    await page.locator('[data-testid="composer-input"]').press('Enter');
    const live = page.locator('[data-testid="transcript-live"]');
    await live.locator('[data-testid="live-text"]').waitFor({ timeout: 10_000 });
    expect(await live.locator('[data-testid="live-thinking"]').textContent()).toBe(
      'Planning 4 steps for: Write the release notes',
    );
    await expect
      .poll(() => live.locator('[data-testid="live-text"]').textContent())
      .toMatch(/^Step 1\/4: working/);
    // While it streams, the block and the row show whole lines only, never "Step 2/4: working on".
    for (let i = 0; i < 12; i++) {
      const text = (await live.locator('[data-testid="live-text"]').textContent()) ?? '';
      for (const line of text.split('\n')) expect(line).toMatch(/^Step \d\/4: working on .* done\.$/);
      const activity = (await row(page, key).locator('[data-testid="row-activity"]').textContent()) ?? '';
      expect(activity).toMatch(/done\.$/);
      await new Promise((r) => setTimeout(r, 150));
    }
    // Still running: no reply has landed yet.
    expect(await status(key)).toBe('running');
    expect(await page.locator('[data-testid="transcript-message"][data-role="assistant"]').count()).toBe(0);
    await expect
      .poll(() => row(page, key).locator('[data-testid="row-activity"]').textContent())
      .toMatch(/^Step \d\/4/);
    await screenshot(page, 'live-run');
    // The reply lands; the live step goes; seen while open, so idle rather than "done — unseen".
    await page
      .locator('[data-testid="transcript-message"][data-role="assistant"]', { hasText: 'All 4 steps done.' })
      .waitFor({ timeout: 15_000 });
    expect(await live.count()).toBe(0);
    await expect.poll(() => status(key)).toBe('idle');
  });

  it('shows each status on the fleet row: done — unseen until opened, failed with its reason, retried', async () => {
    const quiet = 'agent:live:subagent:quiet';
    const broken = 'agent:live:subagent:broken';
    gateway.sessions.create({ key: quiet, label: 'Quiet worker' });
    gateway.sessions.create({ key: broken, label: 'Broken worker' });
    await page.locator('[data-testid="nav-inbox"]').click();
    await gateway.human.send(quiet, 'A short task');
    await expect.poll(() => status(quiet)).toBe('running');
    await gateway.human.send(broken, 'A task that breaks [fail]');
    await expect.poll(() => status(quiet), { timeout: 15_000 }).toBe('done_unseen');
    await expect.poll(() => status(broken), { timeout: 15_000 }).toBe('failed');
    expect(await row(page, broken).locator('[data-testid="session-status"]').getAttribute('title')).toBe(
      'failed: scripted worker failed at step 2 of 4',
    );
    // The window title counts what waits for the person (a failed run).
    await expect.poll(() => page.title()).toBe('(1) Sightline — 1 waiting for you');
    // In the inbox, with its reason, Retry and Open.
    const item = page.locator(`[data-testid="inbox-item"][data-type="failed"][data-session-key="${broken}"]`);
    await item.waitFor();
    expect(await item.locator('[data-testid="inbox-failure-reason"]').textContent()).toBe(
      'scripted worker failed at step 2 of 4',
    );
    // A run that finished while nobody looked is listed too, by its label: a category the person
    // can turn off (and on again).
    const done = page.locator(
      `[data-testid="inbox-item"][data-type="done_unseen"][data-session-key="${quiet}"]`,
    );
    await done.waitFor();
    expect(await done.locator('.session-name').textContent()).toBe('Quiet worker');
    await page.locator('[data-testid="inbox-show-done"]').uncheck();
    await expect.poll(() => done.count()).toBe(0);
    await page.locator('[data-testid="inbox-show-done"]').check();
    await done.waitFor();
    await screenshot(page, 'inbox-queue');
    // One click to the detail: the session shows the failure and its reason.
    await item.locator('[data-testid="inbox-open"]').click();
    expect(await page.locator('[data-testid="failure-reason"]').textContent()).toBe(
      'scripted worker failed at step 2 of 4',
    );
    await screenshot(page, 'status-column');
    await page.locator('[data-testid="retry-run"]').click();
    await expect.poll(() => status(broken)).toBe('running');
    await expect.poll(() => status(broken), { timeout: 15_000 }).toBe('failed');
    // Opening the finished one marks it seen.
    await row(page, quiet).click();
    await expect.poll(() => status(quiet)).toBe('idle');
  });

  it('waiting for you on a permission request (title, notification, n), then running and done; a crash fails', async () => {
    await row(page, 'agent:main:main').click();
    const before = (await shown()).length;
    const asking = await spawnAcp('permission');
    await expect.poll(() => status(asking), { timeout: 15_000 }).toBe('waiting');
    expect(await row(page, asking).locator('[data-testid="session-status"]').getAttribute('title')).toBe(
      'waiting for you: Delete build/',
    );
    await expect.poll(() => page.title()).toBe('(2) Sightline — 2 waiting for you');
    // A notification names the session and the reason; clicking it opens the session.
    await expect
      .poll(async () => (await shown()).slice(before))
      .toEqual([`${gateway.sessions.get(asking)!.label} is waiting for you | Delete build/`]);
    await page.evaluate(() =>
      (window as unknown as { shownNotifications: { note: Notification }[] }).shownNotifications
        .at(-1)!
        .note.onclick?.(new Event('click')),
    );
    await page.locator(`[data-testid="session-pane"][data-session-key="${asking}"]`).waitFor();
    // `n` goes to the next thing that needs the person: the failed run.
    await page.locator('body').press('n');
    await page
      .locator('[data-testid="session-pane"][data-session-key="agent:live:subagent:broken"]')
      .waitFor();
    await row(page, asking).click();
    await page.locator('[data-testid="permission-banner"] [data-option-id="allow-once"]').click();
    await expect.poll(() => status(asking), { timeout: 15_000 }).toBe('idle');

    const crashing = await spawnAcp('crash');
    await expect.poll(() => status(crashing), { timeout: 15_000 }).toBe('failed');
    expect(await row(page, crashing).locator('[data-testid="session-status"]').getAttribute('title')).toMatch(
      /^failed: .*(exit|code 3)/i,
    );
    expect(browser.errors).toEqual([]);
  });

  it('a gateway restart mid-run shows the run failed, not running', async () => {
    const key = 'agent:live:subagent:long';
    gateway.sessions.create({ key, label: 'Long worker' });
    await gateway.human.send(key, 'A long task');
    await expect.poll(() => status(key)).toBe('running');
    await stop();
    await start();
    await page.goto(server.url);
    await page.locator('[data-testid="app"][data-ready="true"]').waitFor();
    await expect.poll(() => status(key)).toBe('failed');
    expect(await row(page, key).locator('[data-testid="session-status"]').getAttribute('title')).toBe(
      'failed: interrupted by a restart',
    );
  });
});
