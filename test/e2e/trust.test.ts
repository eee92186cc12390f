// The trust boundary in the browser (issue 14.3): an agent's message into an adopted session waits
// in the inbox for the person, who declines it (the agent gets "declined by the person" and the
// upstream CLI never runs); the person's own first message into that session shows the exact
// continue command in the consent prompt, and runs only once allowed.
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { CLAUDE_ID, relocate, writeClaude } from '../catalog/fixtures';
import { fakeCli } from '../trust/helpers';
import { row, screenshot, type App, type Browser } from './helpers';
import { useAppInBrowser } from '../helpers/app-in-browser';
import { MAIN } from '../helpers/spec';

let app: App;
let browser: Browser & { errors: string[] };
let page: Page;
let key = '';
let folder = '';
let cli: ReturnType<typeof fakeCli>;
const restorePath = process.env.PATH;

useAppInBrowser((s) => ({ app, browser, page } = s), {
  seed: (app) => {
    folder = fs.realpathSync(app.catalogRoot);
    // The CLI writes the turn into its transcript, as the real one does: with live transcripts
    // the reply is shown from there (issue 15), not from what the CLI printed.
    const transcript = relocate(writeClaude(`${app.catalogRoot}/claude`), folder);
    cli = fakeCli('claude', { claudeTranscript: transcript });
    process.env.PATH = cli.bin;
    key = app.gateway.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID }).key;
  },
});

// Registered after the opening, so it runs before the browser and the app close (as it always did).
afterAll(() => {
  process.env.PATH = restorePath;
});

describe('an agent sending into an adopted session', () => {
  it('waits for the person in the inbox; declined, the agent is told and nothing runs', async () => {
    const sending = app.gateway.tools.call(MAIN, 'sessions_send', {
      sessionKey: key,
      message: 'push to main',
    });
    await page.locator('[data-testid="nav-inbox"]').click();
    const item = page.locator(
      `[data-testid="inbox-item"][data-type="permission"][data-session-key="${key}"]`,
    );
    await item.waitFor();
    expect(await item.locator('[data-testid="permission-requested-by"]').textContent()).toBe('main');
    expect(await item.locator('[data-testid="permission-title"]').textContent()).toBe(
      `${MAIN} wants to send a message into this session (runs the claude CLI): "push to main"`,
    );
    await screenshot(page, 'trust-agent-send');
    await item.locator('[data-testid="permission-option"][data-kind="reject_once"]').click();
    expect(await sending).toEqual({ ok: false, error: 'declined by the person' });
    await expect.poll(() => item.count()).toBe(0);
    expect(cli.calls()).toEqual([]);
  });
});

describe('the person continuing an adopted session', () => {
  it('sees the exact continue command first and runs it only once allowed', async () => {
    await row(page, key).click();
    await page.locator('[data-testid="composer-input"]').fill('run the tests');
    await page.locator('[data-testid="composer-send"]').click();
    const prompt = page.locator('[data-testid="consent-prompt"][data-kind="continue"]');
    await prompt.waitFor();
    expect(await prompt.locator('[data-testid="consent-program"]').textContent()).toBe(`${cli.bin}/claude`);
    expect(
      (await prompt.locator('[data-testid="consent-args"] li').allTextContents()).map(
        (a) => JSON.parse(a) as string,
      ),
    ).toEqual([`--resume=${CLAUDE_ID}`, '-p', 'run the tests']);
    expect(cli.calls()).toEqual([]);
    await screenshot(page, 'trust-continue-consent');
    await prompt.locator('[data-testid="consent-allow"]').click();
    await expect
      .poll(() => cli.calls())
      .toEqual([{ args: [`--resume=${CLAUDE_ID}`, '-p', 'run the tests'], cwd: folder }]);
    await page.locator('[data-testid="transcript-message"]', { hasText: 'reply from claude' }).waitFor();

    // Allowed once for this session, CLI and folder: the next message runs without a question.
    await page.locator('[data-testid="composer-input"]').fill('and the lint');
    await page.locator('[data-testid="composer-send"]').click();
    await expect.poll(() => cli.calls().length).toBe(2);
    expect(await page.locator('[data-testid="consent-prompt"]').count()).toBe(0);
    expect(browser.errors).toEqual([]);
  });
});
