// Links that work and defaults that are honest (issue 25.3, 25.4, 25.7): the address bar names the
// open session and tab across a reload; a link without a valid token says so and what to do; New
// session is watched by nobody unless chosen and a scripted agent says it is scripted; the MCP
// form says in words what is missing.
import { describe, expect, it } from 'vitest';
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, row, sel, type App } from './helpers';
import { useAppInBrowser } from '../helpers/app-in-browser';
import { tempDir } from '../helpers/temp';

let app: App;
let page: Page;
const byTestId = (id: string) => page.locator(`[data-testid="${id}"]`);
const KEY = 'agent:main:subagent:w07';

useAppInBrowser((s) => ({ app, page } = s), {
  seed: (app) => {
    app.gateway.sessions.create({ key: KEY, label: 'Worker 7', parentKey: 'agent:main:main' });
  },
});

describe('links and defaults', () => {
  it('the address bar names the open session and tab, and a reload comes back to them', async () => {
    await row(page, KEY).click();
    await page.locator(sel.pane(KEY)).waitFor();
    await byTestId('tab-timeline').click();
    expect(new URL(page.url()).hash).toBe(`#view=session&session=${encodeURIComponent(KEY)}&tab=timeline`);
    await page.reload();
    await page.locator('[data-testid="app"][data-ready="true"]').waitFor();
    await page.locator(sel.pane(KEY)).waitFor();
    expect(await byTestId('tab-timeline').getAttribute('aria-selected')).toBe('true');
  });

  it('New session is watched by nobody unless chosen, and a scripted agent says it is scripted', async () => {
    await byTestId('new-session').click();
    expect(await byTestId('start-parent').inputValue()).toBe('');
    expect(await byTestId('start-runner').locator('option:checked').textContent()).toBe(
      'Main (scripted: answers written in advance)',
    );
    await page.keyboard.press('Escape');
    await byTestId('new-session-dialog').waitFor({ state: 'detached' });
  });

  it('says in words that a new MCP session needs a name', async () => {
    await byTestId('nav-settings').click();
    await byTestId('mcp-issue').click();
    expect(await byTestId('mcp-error').textContent()).toBe('Give the new session a name.');
    expect(new URL(page.url()).hash).toBe('#view=settings');
  });
});

describe('links without a valid token', () => {
  for (const [problem, suffix] of [
    ['no-token', ''],
    ['refused', '#token=not-this-runs-token'],
  ] as const) {
    it(`shows what to do (${problem})`, async () => {
      const profile = tempDir('sightline-e2e-chromium-');
      const context = await chromium.launchPersistentContext(profile, {
        executablePath: '/usr/bin/chromium',
        args: CHROMIUM_ARGS,
      });
      try {
        const p = context.pages()[0] ?? (await context.newPage());
        await p.goto(new URL('/', app.server.url).toString() + suffix);
        const notice = p.locator(`[data-testid="link-problem"][data-problem="${problem}"]`);
        await notice.waitFor({ timeout: 15_000 });
        expect(await notice.textContent()).toContain('npm run web');
      } finally {
        await context.close();
      }
    });
  }
});
