// A person logs an agent in from the session, in browser mode (issue 28.5): the fixture agent
// answers authRequired to the first prompt; the session's banner lists its auth methods; "Run in
// a terminal" asks first (the exact command line and folder), then the agent's login command runs
// on a pty shown in a real terminal (xterm.js) of the panel's size, which follows the panel. Keys
// go to the program as a terminal sends them: Ctrl-C interrupts a first login (exit 130), the
// code typed into a second one logs it in (exit 0); Retry, and the answer is in the transcript.
// Colours render (24-bit and 256) and no CSP violation happens on the way.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ROOT, screenshot, sel, tmpDir, type App, type Browser } from './helpers';
import { useAppInBrowser } from '../helpers/app-in-browser';

const AGENT = path.join(ROOT, 'test/fixtures/acp-agent/agent.mjs');
const CODE = '4242-7731';
const PROMPT = 'Enter the code from your browser:';

let app: App;
let browser: Browser & { errors: string[] };
let page: Page;
let folder: string;
let credential: string;

afterAll(async () => {
  fs.rmSync(folder, { recursive: true, force: true });
  fs.rmSync(path.dirname(credential), { recursive: true, force: true });
});

useAppInBrowser((s) => ({ app, browser, page } = s), {
  seed: (app) => {
    folder = fs.realpathSync(tmpDir('sightline-e2e-login-'));
    credential = path.join(tmpDir('sightline-e2e-credential-'), 'credential');
    app.gateway.acp.profiles.save({
      id: 'needs-login',
      name: 'Needs Login',
      command: process.execPath,
      args: [AGENT],
      env: { ACP_FIXTURE_AUTH: '1', ACP_FIXTURE_CREDENTIAL: credential, ACP_FIXTURE_LOGIN_CODE: CODE },
    });
  },
});

beforeAll(async () => {
  // Every CSP violation in the page, whatever the console shows.
  await page.evaluate(() => {
    const w = window as unknown as { cspViolations: string[] };
    w.cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      w.cspViolations.push(`${e.effectiveDirective}: ${e.sample || e.blockedURI}`),
    );
  });
});

const terminal = () => page.locator('[data-testid="login-terminal"]');
const screen = () => page.locator('[data-testid="login-terminal-screen"]');

/** The terminal's screen as text: its rows, trailing blanks cut. */
async function screenText(): Promise<string> {
  const rows = await page
    .locator('[data-testid="login-terminal-screen"] .xterm-rows > div')
    .allTextContents();
  return rows
    .map((r) => r.replace(/\u00a0/g, ' ').trimEnd())
    .join('\n')
    .trimEnd();
}

async function size(): Promise<string> {
  return `${await screen().getAttribute('data-cols')}x${await screen().getAttribute('data-rows')}`;
}

/** "Run in a terminal": the consent shows the exact command line and folder; allowed. */
async function runInTerminal(): Promise<void> {
  await page.locator('[data-testid="auth-run-terminal"]').click();
  const prompt = page.locator('[data-testid="consent-prompt"]');
  await prompt.waitFor();
  expect(await prompt.locator('[data-testid="consent-title"]').textContent()).toBe(
    "Log in in a terminal: run the agent's login command in a terminal?",
  );
  expect(await prompt.locator('[data-testid="consent-program"]').textContent()).toBe(process.execPath);
  expect(
    (await prompt.locator('[data-testid="consent-args"] li').allTextContents()).map(
      (a) => JSON.parse(a) as string,
    ),
  ).toEqual([AGENT, '--login']);
  expect(await prompt.locator('[data-testid="consent-cwd"]').textContent()).toBe(folder);
  await prompt.locator('[data-testid="consent-allow"]').click();
  await prompt.waitFor({ state: 'detached' });
  await page.locator('[data-testid="login-terminal"][data-state="running"]').waitFor();
  await expect.poll(screenText, { timeout: 10_000 }).toContain(PROMPT);
  expect(await screenText()).toBe(`Fixture login on a ${await size()} terminal.\n${PROMPT}`);
  await screen().click(); // the keyboard's focus, as a person clicks into a terminal
}

describe('logging an agent in from its session, in a terminal', { timeout: 60_000 }, () => {
  let key = '';

  it('the first prompt answers authRequired; the banner lists the agent`s ways to log in', async () => {
    await page.locator('[data-testid="new-session"]').click();
    await page.locator('[data-testid="new-session-dialog"]').waitFor();
    await page.locator('[data-testid="start-runner"]').selectOption('acp:needs-login');
    await page.locator('[data-testid="start-cwd"]').fill(folder);
    await page.locator('[data-testid="start-cwd-check"]', { hasText: `✓ ${folder}` }).waitFor();
    await page.locator('[data-testid="start-label"]').fill('Needs a login');
    await page.locator('[data-testid="start-message"]').fill('answer: hello');
    await page.locator('[data-testid="start-submit"]').click();
    await page.locator('[data-testid="new-session-dialog"]').waitFor({ state: 'detached', timeout: 20_000 });
    key = app.gateway.sessions.list().find((s) => s.label === 'Needs a login')!.key;
    await page.locator(sel.pane(key)).waitFor();
    const panel = page.locator('[data-testid="auth-panel"]');
    await panel.waitFor({ timeout: 20_000 });
    expect(await page.locator('[data-testid="failure-reason"]').textContent()).toBe(
      'agent returned a protocol error: Authentication required (code -32000)',
    );
    const methods = panel.locator('[data-testid="auth-method"]');
    await expect.poll(() => methods.count()).toBe(3);
    expect(await methods.evaluateAll((els) => els.map((e) => e.firstElementChild?.textContent))).toEqual([
      'Log in through the agent — The agent logs itself in',
      'Use an API key — Set FIXTURE_API_KEY',
      'Log in in a terminal',
    ]);
    expect(await panel.locator('[data-method-id="fixture-terminal-login"] pre').textContent()).toBe(
      `${process.execPath} ${AGENT} --login`,
    );
    // What each method offers: authenticate, the key field, the terminal; one Retry in the banner.
    const buttons = (id: string) => panel.locator(`[data-method-id="${id}"] button`).allTextContents();
    expect(await buttons('fixture-agent-login')).toEqual(['Authenticate']);
    expect(await buttons('fixture-api-key')).toEqual(['Enter the key (FIXTURE_API_KEY)']);
    expect(await buttons('fixture-terminal-login')).toEqual(['Run in a terminal']);
    expect(await panel.locator('[data-testid="auth-api-key"] > div').textContent()).toBe(
      'Or give the profile “Needs Login” an API key (FIXTURE_API_KEY):',
    );
    await panel.locator('[data-testid="auth-use-key"]').click();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
      'API key (FIXTURE_API_KEY)',
    );
    const banner = page.locator('[data-testid="failure-banner"]');
    expect(await banner.getByRole('button', { name: 'Retry', exact: true }).count()).toBe(1);
  });

  it('Ctrl-C typed into the terminal interrupts the login command: exit 130', async () => {
    await runInTerminal();
    await page.keyboard.press('Control+C');
    await page.locator('[data-testid="login-terminal-exit"]').waitFor({ timeout: 10_000 });
    expect(await page.locator('[data-testid="login-terminal-exit"]').textContent()).toBe(
      'The login command exited with code 130.',
    );
    expect(await screenText()).toBe(`Fixture login on a ${await size()} terminal.\n${PROMPT} ^C`);
    expect(fs.existsSync(credential)).toBe(false);
    await page.locator('[data-testid="login-terminal-close"]').click();
    await terminal().waitFor({ state: 'detached' });
  });

  it('the pty follows the panel, colours render, and the typed code logs the agent in', async () => {
    await runInTerminal();
    const before = await size();
    // The 24-bit orange and the 256-colour green, through the CSP-safe colouring.
    const colour = (text: string) =>
      page
        .locator('[data-testid="login-terminal-screen"] .xterm-rows span', { hasText: text })
        .first()
        .evaluate((el) => getComputedStyle(el).color);
    expect(await colour('Fixture login')).toBe('rgb(215, 119, 87)');
    expect(await colour(before)).toBe('rgb(0, 175, 0)');
    await page.setViewportSize({ width: 1100, height: 860 });
    await expect.poll(size).not.toBe(before);
    const after = await size();
    await expect.poll(screenText, { timeout: 10_000 }).toContain(`Resized to ${after}.`);
    await page.keyboard.type(CODE);
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="login-terminal-exit"]').waitFor({ timeout: 10_000 });
    expect(await page.locator('[data-testid="login-terminal-exit"]').textContent()).toBe(
      'The login command exited with code 0. Retry the run.',
    );
    const text = await screenText();
    expect(text.startsWith(`Fixture login on a ${before} terminal.\n${PROMPT}`)).toBe(true);
    expect(text.endsWith(`Resized to ${after}.\n${CODE}\nLogged in.`)).toBe(true);
    expect(fs.readFileSync(credential, 'utf8')).toBe('fixture-credential\n');
    await screen().scrollIntoViewIfNeeded();
    await screenshot(page, 'login-terminal');
    // The system turns dark: the terminal follows the app's theme.
    const background = () =>
      page
        .locator('[data-testid="login-terminal-screen"] .xterm-scrollable-element')
        .evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(await background()).toBe('rgb(255, 255, 255)');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(background).toBe('rgb(15, 18, 22)');
    expect(await colour('Fixture login')).toBe('rgb(215, 119, 87)');
    await screenshot(page, 'login-terminal-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1400, height: 860 });
  });

  it('Retry: the answer lands in the transcript; no CSP violation on the way', async () => {
    await page.locator('[data-testid="auth-retry"]').click();
    await page.locator(sel.msg('agent'), { hasText: 'You said: answer: hello' }).waitFor({ timeout: 20_000 });
    expect(app.gateway.transcripts.all(key).at(-1)!.text).toBe('You said: answer: hello');
    await page.locator('[data-testid="auth-panel"]').waitFor({ state: 'detached' });
    expect(
      await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations),
    ).toEqual([]);
    expect(browser.errors).toEqual([]);
  });
});
