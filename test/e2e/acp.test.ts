// ACP children in the browser: an ACP profile saved through Settings (validation errors from the
// envelope; the consent prompt shows the exact command line, "Don't run" stores nothing, "Allow"
// stores it; a changed command line asks again), a real fixture agent spawned by the coordinator asking for permission, the person
// answering from the banner (mouse) and from the inbox (keyboard), the decision in the child's
// transcript and run_completed in its signal log; a 10,000-message transcript stays virtualised.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TranscriptMessage } from '../../shared/ipc';
import { createTranscriptStore } from '../../electron/gateway/sessions/transcripts';
import { row, ROOT, screenshot, type App, type Browser } from './helpers';
import { useAppInBrowser } from '../helpers/app-in-browser';

const AGENT = path.join(ROOT, 'test/fixtures/acp-agent/agent.mjs');
const COORDINATOR = 'agent:main:main';
const LONG = 'agent:main:long-transcript';
const DECIDED = (decision: string) => `Permission "Delete build/": ${decision}`;

let app: App;
let browser: Browser & { errors: string[] };
let page: Page;
let profileId = '';

useAppInBrowser((s) => ({ app, browser, page } = s));

const sel = {
  pane: (key: string) => `[data-testid="session-pane"][data-session-key="${key}"]`,
  form: '[data-testid="acp-profile-form"]',
  request: (key: string) => `[data-testid="inbox-item"][data-type="permission"][data-session-key="${key}"]`,
  system: '[data-testid="transcript-message"][data-role="system"]',
};

async function spawnPermissionChild(): Promise<string> {
  const r = await app.gateway.tools.call(COORDINATOR, 'sessions_spawn', {
    task: 'permission',
    runtime: 'acp',
    profile: profileId,
  });
  if (!r.ok) throw new Error(r.error);
  const key = (r.details as { childSessionKey: string }).childSessionKey;
  expect(key).toMatch(/^agent:main:acp:[0-9a-f]{8}$/);
  return key;
}

async function fillProfile(fields: { name?: string; command?: string; args?: string; env?: string }) {
  const form = page.locator(sel.form);
  if (fields.name !== undefined) await form.locator('[data-testid="acp-profile-name"]').fill(fields.name);
  if (fields.command !== undefined)
    await form.locator('[data-testid="acp-profile-command"]').fill(fields.command);
  if (fields.args !== undefined) await form.locator('[data-testid="acp-profile-args"]').fill(fields.args);
  if (fields.env !== undefined) await form.locator('[data-testid="acp-profile-env"]').fill(fields.env);
}

const profileError = () => page.locator(`${sel.form} [data-testid="acp-profile-error"]`).textContent();

/** The consent prompt for the command line just saved: what it shows, then the person's answer. */
async function answerConsent(allow: boolean): Promise<{ title: string; program: string; args: string[] }> {
  const prompt = page.locator('[data-testid="consent-prompt"]');
  await prompt.waitFor();
  const shown = {
    title: (await prompt.locator('[data-testid="consent-title"]').textContent()) ?? '',
    program: (await prompt.locator('[data-testid="consent-program"]').textContent()) ?? '',
    args: (await prompt.locator('[data-testid="consent-args"] li').allTextContents()).map(
      (a) => JSON.parse(a) as string,
    ),
  };
  await prompt.locator(`[data-testid="consent-${allow ? 'allow' : 'decline'}"]`).click();
  await prompt.waitFor({ state: 'detached' });
  return shown;
}

async function waitForRunCompleted(key: string) {
  await page.locator('[data-testid="tab-timeline"]').click();
  await page.locator('[data-testid="timeline-row"][data-kind="run_completed"]').waitFor({ timeout: 15_000 });
  expect(
    await page
      .locator('[data-testid="timeline-row"][data-kind="run_completed"] [data-testid="timeline-summary"]')
      .textContent(),
  ).toBe('child run completed');
  expect(app.gateway.state.timeline(key, { kinds: ['run_completed'] })).toHaveLength(1);
}

describe('ACP profiles in Settings', () => {
  it('shows validation errors from the envelope, then saves a profile for the fixture agent', async () => {
    await page.locator('[data-testid="nav-settings"]').click();
    await page.locator('[data-testid="acp-profiles"][data-ready="true"]').waitFor();
    expect(await page.locator('[data-testid="acp-profile"]').count()).toBe(0);
    await page.locator('[data-testid="acp-profile-add"]').click();

    await fillProfile({ name: 'Fixture agent', command: '  ' });
    await page.locator('[data-testid="acp-profile-save"]').click();
    await expect.poll(profileError).toBe('command: command must not be empty');

    await fillProfile({ command: process.execPath, args: AGENT, env: 'BAD-NAME=1' });
    await page.locator('[data-testid="acp-profile-save"]').click();
    await expect.poll(profileError).toBe('env.BAD-NAME: env names must match [A-Za-z_][A-Za-z0-9_]*');

    await fillProfile({ env: 'SIGHTLINE_E2E' });
    await page.locator('[data-testid="acp-profile-save"]').click();
    await expect.poll(profileError).toBe('env line 1: expected KEY=VALUE');

    await page.locator(`${sel.form} [data-testid="acp-profile-cwd"]`).fill('relative/dir');
    await fillProfile({ env: 'SIGHTLINE_E2E=1\n\nGREETING=a=b' });
    await page.locator('[data-testid="acp-profile-save"]').click();
    await expect.poll(profileError).toBe('cwd: cwd must be an absolute path');
    expect(app.gateway.acp.profiles.list()).toEqual([]);

    await page.locator(`${sel.form} [data-testid="acp-profile-cwd"]`).fill('');
    await page.locator(`${sel.form} [data-testid="acp-profile-allow-agents"]`).check();
    // Nothing is stored until the person allows the exact command line (issue 14.3).
    await page.locator('[data-testid="acp-profile-save"]').click();
    const asked = await answerConsent(false);
    expect(asked).toEqual({
      // Switching "ask before terminal commands" off is part of what the person is asked (issue 29.3).
      title:
        'Run the ACP agent "Fixture agent" (agents may start it too; its terminal commands run without asking you)?',
      program: process.execPath,
      args: [AGENT],
    });
    await expect.poll(profileError).toBe('declined by the person');
    expect(app.gateway.acp.profiles.list()).toEqual([]);
    await screenshot(page, 'consent-prompt-declined');

    await page.locator('[data-testid="acp-profile-save"]').click();
    await page.locator('[data-testid="consent-prompt"] [data-testid="consent-env"]').waitFor();
    expect(
      await page.locator('[data-testid="consent-prompt"] [data-testid="consent-env"]').textContent(),
    ).toBe('SIGHTLINE_E2E=••••\nGREETING=••••');
    await screenshot(page, 'consent-prompt');
    await answerConsent(true);
    const card = page.locator('[data-testid="acp-profile"][data-profile-id="fixture-agent"]');
    await card.waitFor();
    expect(await page.locator(sel.form).count()).toBe(0);
    expect(app.gateway.acp.profiles.list()).toEqual([
      {
        id: 'fixture-agent',
        name: 'Fixture agent',
        command: process.execPath,
        args: [AGENT],
        env: { SIGHTLINE_E2E: '1', GREETING: 'a=b' },
        allowAgents: true,
        askTerminal: false,
        reach: 'agent',
      },
    ]);
    expect(await card.locator('[data-testid="acp-profile-card-flags"]').textContent()).toBe(
      'agents may start it',
    );
    expect(await card.locator('[data-testid="acp-profile-card-command"]').textContent()).toBe(
      `${process.execPath} ${AGENT}`,
    );
    profileId = 'fixture-agent';
  });

  it('edits and removes profiles', async () => {
    await page.locator('[data-testid="acp-profile-add"]').click();
    await fillProfile({
      name: 'Ghost',
      command: 'no-such-acp-agent',
      env: 'GHOST_TOKEN=ghost-0123456789abcd',
    });
    await page.locator('[data-testid="acp-profile-save"]').click();
    expect(await answerConsent(true)).toMatchObject({ program: 'no-such-acp-agent', args: [] });
    const ghost = page.locator('[data-testid="acp-profile"][data-profile-id="ghost"]');
    await ghost.waitFor();

    // The form shows the stored secret masked; left as it is, it keeps the stored value. A new
    // name alone is no new command line; new arguments are, so the person is asked again.
    await ghost.locator('[data-testid="acp-profile-edit"]').click();
    expect(await page.locator(`${sel.form} [data-testid="acp-profile-env"]`).inputValue()).toBe(
      'GHOST_TOKEN=••••abcd',
    );
    await fillProfile({ name: 'Ghost agent', args: '--quiet\n--model\nsmall' });
    await page.locator('[data-testid="acp-profile-save"]').click();
    expect(await answerConsent(true)).toMatchObject({ args: ['--quiet', '--model', 'small'] });
    await expect
      .poll(() => ghost.locator('[data-testid="acp-profile-card-name"]').textContent())
      .toBe('Ghost agent');
    expect(app.gateway.acp.profiles.get('ghost')).toEqual({
      id: 'ghost',
      name: 'Ghost agent',
      command: 'no-such-acp-agent',
      args: ['--quiet', '--model', 'small'],
      env: { GHOST_TOKEN: 'ghost-0123456789abcd' },
      allowAgents: false,
      askTerminal: false,
      reach: 'agent',
    });
    await ghost.locator('[data-testid="acp-profile-edit"]').click();
    await fillProfile({ name: 'Ghost' });
    await page.locator('[data-testid="acp-profile-save"]').click();
    await expect
      .poll(() => ghost.locator('[data-testid="acp-profile-card-name"]').textContent())
      .toBe('Ghost');
    expect(await page.locator('[data-testid="consent-prompt"]').count()).toBe(0);

    await ghost.locator('[data-testid="acp-profile-remove"]').click();
    await ghost.locator('[data-testid="acp-profile-remove-confirm"]').click();
    await expect.poll(() => ghost.count()).toBe(0);
    expect(app.gateway.acp.profiles.list().map((p) => p.id)).toEqual(['fixture-agent']);

    expect(await page.locator('[data-testid="retention-signal-log"]').textContent()).toBe(
      '30 days and 50,000 rows (for the whole database; the oldest go first)',
    );
    expect(await page.locator('[data-testid="retention-cursors"]').textContent()).toBe(
      'expire after 30 days untouched',
    );
    expect(await page.locator('[data-testid="retention-pruning"]').textContent()).toBe(
      'hourly and at start-up',
    );
    // Browser mode has no keyring: Settings says plainly where the secrets are (issue 14.4).
    const secrets = page.locator('[data-testid="secret-storage"]');
    expect(await secrets.getAttribute('data-sealed')).toBe('false');
    expect(await secrets.textContent()).toMatch(
      /^Browser mode has no access to the system keyring\. API keys and ACP profile environment values are stored unencrypted/,
    );
    await page.locator('[data-testid="acp-profiles"]').scrollIntoViewIfNeeded();
    await screenshot(page, 'settings-acp');
  });

  it('a known agent`s profile has the Add form`s fields: its API key (never shown back), base URL, IS_SANDBOX', async () => {
    const OLD = 'sk-ant-old-0123456789';
    const NEW = 'sk-ant-new-9876543210';
    await page.locator('[data-testid="acp-profile-add"]').click();
    await fillProfile({
      name: 'Claude npx',
      command: 'npx',
      args: '-y\n@zed-industries/claude-agent-acp@0.23.1',
      env: `ANTHROPIC_API_KEY=${OLD}`,
    });
    await page.locator('[data-testid="acp-profile-save"]').click();
    await answerConsent(true);
    const card = page.locator('[data-testid="acp-profile"][data-profile-id="claude-npx"]');
    await card.locator('[data-testid="acp-profile-edit"]').click();
    const needs = page.locator(`${sel.form} [data-testid="acp-profile-needs"]`);
    const key = needs.locator('[data-testid="acp-profile-api-key"]');
    expect([
      await key.getAttribute('type'),
      await key.inputValue(),
      await key.getAttribute('placeholder'),
    ]).toEqual(['password', '', 'stored — type to replace']);
    expect(await needs.locator('[data-testid="acp-profile-base-url"]').getAttribute('placeholder')).toBe(
      'not set',
    );
    // Sightline runs as root here (as in CI): Claude Code needs IS_SANDBOX=1, offered in words.
    const sandbox = needs.locator('[data-testid="acp-profile-sandbox"] input');
    expect(await sandbox.isChecked()).toBe(false);
    await key.fill(NEW);
    await needs.locator('[data-testid="acp-profile-base-url"]').fill('http://127.0.0.1:9/anthropic');
    await sandbox.check();
    await page.locator('[data-testid="acp-profile-save"]').click();
    await answerConsent(true);
    await expect.poll(() => page.locator(sel.form).count()).toBe(0);
    expect(app.gateway.acp.profiles.get('claude-npx')?.env).toEqual({
      ANTHROPIC_API_KEY: NEW,
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/anthropic',
      IS_SANDBOX: '1',
    });
    // The key went to the gateway once and never came back: the page shows it masked only.
    await card.locator('[data-testid="acp-profile-edit"]').click();
    expect(await page.locator(`${sel.form} [data-testid="acp-profile-env"]`).inputValue()).toContain(
      'ANTHROPIC_API_KEY=••••3210',
    );
    expect(await page.content()).not.toContain(NEW);
    expect(await page.content()).not.toContain(OLD);
    await page.locator(sel.form).getByRole('button', { name: 'Cancel' }).click();
    await card.locator('[data-testid="acp-profile-remove"]').click();
    await card.locator('[data-testid="acp-profile-remove-confirm"]').click();
    await expect.poll(() => card.count()).toBe(0);
  });
});

describe('ACP permission requests', () => {
  let child = '';

  it('shows the request at once in the inbox and as a banner in the child session', async () => {
    child = await spawnPermissionChild();
    await page.locator('[data-testid="nav-inbox"]').click();
    const item = page.locator(sel.request(child));
    await item.waitFor({ timeout: 15_000 });
    expect(await page.locator('[data-testid="inbox-count"]').textContent()).toBe('1');
    expect(await item.locator('[data-testid="permission-title"]').textContent()).toBe('Delete build/');
    const options = item.locator('[data-testid="permission-option"]');
    expect(await options.allTextContents()).toEqual(['Allow once', 'Reject']);
    expect(await options.evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')))).toEqual([
      'allow_once',
      'reject_once',
    ]);

    await item.locator('[data-testid="inbox-open"]').click();
    await page.locator(sel.pane(child)).waitFor();
    const banner = page.locator(`${sel.pane(child)} [data-testid="permission-banner"]`);
    await banner.waitFor();
    expect(await banner.locator('[data-testid="permission-title"]').textContent()).toBe('Delete build/');
    await expect.poll(() => row(page, child).getAttribute('data-kind')).toBe('acp');
    await screenshot(page, 'acp-permission');
  });

  it('allows once from the banner: the request disappears, the decision shows in the transcript', async () => {
    const banner = page.locator(`${sel.pane(child)} [data-testid="permission-banner"]`);
    await banner.locator('[data-testid="permission-option"][data-kind="allow_once"]').click();
    await expect.poll(() => banner.count()).toBe(0);
    expect(app.gateway.acp.permissions.pending()).toEqual([]);
    await expect.poll(() => page.locator('[data-testid="inbox-count"]').count()).toBe(0);

    await page.locator('[data-testid="tab-transcript"]').click();
    const decision = page.locator(sel.system, { hasText: 'Permission "' });
    await decision.waitFor();
    expect(await decision.locator('.text').textContent()).toBe(DECIDED('Allow once (allow_once)'));
    await page
      .locator('[data-testid="transcript-message"][data-role="assistant"]', {
        hasText: 'permission: selected allow-once',
      })
      .waitFor({ timeout: 15_000 });
    await waitForRunCompleted(child);
  });

  it('rejects from the inbox with the keyboard alone', async () => {
    const second = await spawnPermissionChild();
    await page.locator('body').press('i');
    const item = page.locator(sel.request(second));
    await item.waitFor({ timeout: 15_000 });
    const reject = item.locator('[data-testid="permission-option"][data-kind="reject_once"]');
    await item.locator('[data-testid="permission-option"][data-kind="allow_once"]').focus();
    await page.keyboard.press('Tab');
    expect(await reject.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => item.count()).toBe(0);
    expect(app.gateway.acp.permissions.pending()).toEqual([]);

    await row(page, second).click();
    await page.locator(sel.pane(second)).waitFor();
    await page.locator('[data-testid="tab-transcript"]').click();
    const decision = page.locator(sel.system, { hasText: 'Permission "' });
    await decision.waitFor();
    expect(await decision.locator('.text').textContent()).toBe(DECIDED('Reject (reject_once)'));
    await waitForRunCompleted(second);
    expect(
      app.gateway.transcripts
        .all(second)
        .filter((m) => m.role === 'system')
        .map((m) => m.text),
    ).toEqual([DECIDED('Reject (reject_once)')]);
  });
});

describe('a long transcript', () => {
  const scroll = () => page.locator('[data-testid="transcript-scroll"]');
  const message = (text: string) =>
    page.locator('[data-testid="transcript-message"]', { has: page.getByText(text, { exact: true }) });

  it('pages older messages in above the first one in view, which stays in place', async () => {
    app.gateway.sessions.create({ key: LONG, label: 'Long transcript' });
    const store = createTranscriptStore(app.gateway.db, Date.now);
    for (let i = 0; i < 250; i++) {
      store.append(LONG, { role: 'user', actorType: 'human', text: `Stored message ${i}` });
    }
    await row(page, LONG).click();
    await page.locator(sel.pane(LONG)).waitFor();
    await page.locator('[data-testid="tab-transcript"]').click();
    await page.locator('[data-testid="transcript"][data-ready="true"]').waitFor();
    expect(await scroll().getAttribute('data-count')).toBe('100');
    await message('Stored message 249').waitFor();
    expect(await message('Stored message 249').isVisible()).toBe(true);

    await scroll().evaluate((el) => el.scrollTo({ top: 0 }));
    await message('Stored message 150').waitFor();
    await page.locator('[data-testid="transcript-older"]').click();
    await expect.poll(() => scroll().getAttribute('data-count')).toBe('200');
    await expect.poll(() => message('Stored message 150').isVisible()).toBe(true);
    expect(await message('Stored message 50').count()).toBe(0);
    await page.locator('[data-testid="transcript-older"]').click();
    await expect.poll(() => scroll().getAttribute('data-count')).toBe('250');
    expect(await page.locator('[data-testid="transcript-older"]').count()).toBe(0);
  });

  it('keeps 10,000 messages virtualised and follows the newest', async () => {
    await scroll().evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    const before = Number(await scroll().getAttribute('data-count'));
    expect(before).toBe(250);
    const base = 10_000_000;
    for (let i = 0; i < 10_000; i++) {
      const message: TranscriptMessage = {
        id: base + i,
        sessionKey: LONG,
        role: i % 2 ? 'assistant' : 'user',
        actorType: i % 2 ? 'agent' : 'human',
        text: `Synthetic message ${i}${i % 7 === 0 ? '\nwith a second line' : ''}`,
        createdAt: Date.now(),
      };
      app.gateway.events.emit({ type: 'transcript:appended', message });
    }
    await expect.poll(() => scroll().getAttribute('data-count')).toBe(String(before + 10_000));
    const last = page.locator('[data-testid="transcript-message"]', { hasText: 'Synthetic message 9999' });
    await last.waitFor();
    expect(await last.isVisible()).toBe(true);
    const rendered = await page.locator('[data-testid="transcript-message"]').count();
    expect(rendered).toBeGreaterThan(5);
    expect(rendered).toBeLessThan(80);

    // Scrolling to the top renders the first rows instead, still only a window of them.
    await scroll().evaluate((el) => el.scrollTo({ top: 0 }));
    await page
      .locator('[data-testid="transcript-message"]', { hasText: 'Synthetic message 9999' })
      .waitFor({ state: 'detached' });
    expect(await page.locator('[data-testid="transcript-message"]').count()).toBeLessThan(80);
    expect(browser.errors).toEqual([]);
  });
});
