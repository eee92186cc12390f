// The first run explains itself (issue 17.6) and search/catalog filtering work (17.5): empty
// states, "How Sightline works", the catalog's roots, filter and folders, the dark theme, search.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { claudeAssistant, writeClaude, writeCodex } from '../catalog/fixtures';
import { line } from '../catalog/helpers';
import { screenshot, type App, type Browser } from './helpers';
import { useAppInBrowser } from '../helpers/app-in-browser';
import { noticeText } from '../helpers/spec';

let app: App;
let browser: Browser & { errors: string[] };
let page: Page;

useAppInBrowser((s) => ({ app, browser, page } = s));

const byTestId = (id: string) => page.locator(`[data-testid="${id}"]`);

/** A second Claude Code project, in another folder. */
function writeClaudeElsewhere(root: string): void {
  const id = '2b7e4a10-0c1d-4e5f-8a9b-0c1d2e3f4a5b';
  const cwd = '/home/ana/src/web-shop';
  const file = path.join(root, '-home-ana-src-web-shop', `${id}.jsonl`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    file,
    line({
      parentUuid: null,
      isSidechain: false,
      userType: 'external',
      cwd,
      sessionId: id,
      type: 'user',
      message: { role: 'user', content: 'The checkout button does nothing on Safari.' },
      uuid: 'u2',
      timestamp: '2026-03-03T10:00:00.000Z',
    }) + claudeAssistant('Checking the click handler.'),
  );
}

describe('a first run', () => {
  it('the empty fleet says what to do and where the data lives', async () => {
    const empty = byTestId('empty-state');
    await empty.waitFor();
    await expect.poll(() => byTestId('data-dir').textContent()).toBe(app.dataDir);
    for (const id of ['start-demo', 'empty-catalog', 'empty-settings', 'empty-guide']) {
      expect(await byTestId(id).isVisible()).toBe(true);
    }
    expect(await empty.textContent()).toContain('No API key needed');
    await screenshot(page, 'first-run');
  });

  it('"How Sightline works" is in the palette and draws step-in → notice → reconcile', async () => {
    await page.keyboard.press('Control+k');
    await byTestId('palette-input').fill('how sight');
    await byTestId('palette-item').first().click();
    const guide = byTestId('guide');
    await guide.waitFor();
    const steps = guide.locator('[data-testid="guide-step"] h2');
    expect(await steps.allTextContents()).toEqual([
      'You step in',
      'The watcher gets one notice',
      'It reconciles',
    ]);
    expect(await guide.locator('.notice-text').textContent()).toBe(
      noticeText('agent:demo:subagent:research', 12),
    );
    expect(await guide.locator('.notice-text').getAttribute('title')).toContain('session_status');
    await screenshot(page, 'how-it-works');
  });

  it('the empty catalog names its roots and how to move them', async () => {
    await byTestId('nav-catalog').click();
    await page.locator('[data-testid="catalog"][data-ready="true"]').waitFor();
    await byTestId('catalog-empty').waitFor();
    const roots = byTestId('catalog-root');
    expect(await roots.count()).toBe(4);
    for (const p of ['claude', 'codex', 'opencode', 'pi']) {
      const r = page.locator(`[data-testid="catalog-root"][data-provider="${p}"]`);
      expect(await r.locator('[data-testid="catalog-root-path"]').textContent()).toBe(
        path.join(app.catalogRoot, p),
      );
      expect(await r.textContent()).toContain('found');
    }
    const text = await byTestId('catalog-roots').textContent();
    for (const env of ['CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'XDG_DATA_HOME', 'PI_CODING_AGENT_SESSION_DIR'])
      expect(text).toContain(env);
  });

  it('filters the catalog and groups it by project folder', async () => {
    writeClaude(path.join(app.catalogRoot, 'claude'));
    writeClaudeElsewhere(path.join(app.catalogRoot, 'claude'));
    writeCodex(path.join(app.catalogRoot, 'codex'));
    await page.getByRole('button', { name: 'Rescan' }).click();
    const entries = byTestId('catalog-entry');
    await expect.poll(() => entries.count(), { timeout: 15_000 }).toBe(3);
    const folders = byTestId('catalog-folder');
    expect(
      (await folders.evaluateAll((els) => els.map((e) => e.getAttribute('data-folder')))).sort(),
    ).toEqual(['/home/ana/src/ledger-api', '/home/ana/src/web-shop']);
    const ledger = page.locator('[data-testid="catalog-folder"][data-folder="/home/ana/src/ledger-api"]');
    expect(await ledger.locator('[data-testid="catalog-entry"]').count()).toBe(2);
    await screenshot(page, 'catalog-folders');

    await byTestId('catalog-filter').fill('safari');
    await expect.poll(() => entries.count()).toBe(1);
    expect(await entries.first().textContent()).toContain('The checkout button does nothing on Safari.');
    expect(await byTestId('catalog-count').textContent()).toBe('1 of 3');
    await byTestId('catalog-filter').fill('codex ledger');
    await expect.poll(() => entries.count()).toBe(1);
    expect(await entries.first().getAttribute('data-provider')).toBe('codex');
    await byTestId('catalog-filter').fill('nothing like this');
    await byTestId('catalog-no-match').waitFor();
    expect(await byTestId('catalog-no-match').textContent()).toBe(
      'No catalog session matches “nothing like this”.',
    );
    await byTestId('catalog-filter').fill('');
    await byTestId('catalog-group').uncheck();
    await expect.poll(() => folders.count()).toBe(0);
    expect(await entries.count()).toBe(3);
  });

  it('dark theme: a toggle, remembered by the gateway, and following the system', async () => {
    const bg = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    await page.emulateMedia({ colorScheme: 'light' });
    await byTestId('nav-session').click();
    expect(await bg()).toBe('rgb(247, 247, 245)');
    await byTestId('theme-toggle').click();
    await expect.poll(() => page.locator('html').getAttribute('data-theme')).toBe('dark');
    expect(await bg()).toBe('rgb(15, 18, 22)');
    await screenshot(page, 'dark-theme');
    expect(await byTestId('theme-toggle').textContent()).toBe('☾');
    // Remembered by the gateway (browser mode's origin changes with its port): survives a reload.
    await page.reload();
    await page.locator('[data-testid="app"][data-ready="true"]').waitFor();
    await expect.poll(() => page.locator('html').getAttribute('data-theme')).toBe('dark');
    // Settings → Appearance: follow the system (light, then dark).
    await byTestId('nav-settings').click();
    await page.locator('[data-testid="appearance"] label', { hasText: 'Follow the system' }).click();
    expect(await byTestId('theme-system').isChecked()).toBe(true);
    await expect.poll(() => page.locator('html').getAttribute('data-theme')).toBe(null);
    expect(await bg()).toBe('rgb(247, 247, 245)');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(bg).toBe('rgb(15, 18, 22)');
    await page.emulateMedia({ colorScheme: 'light' });
    await expect.poll(bg).toBe('rgb(247, 247, 245)');
  });
});

describe('search across sessions', () => {
  it('finds a word from a message, grouped by session with its line; says plainly when nothing matches', async () => {
    app.gateway.sessions.create({ key: 'agent:main:subagent:deploy', label: 'Release helper' });
    await app.gateway.human.send(
      'agent:main:subagent:deploy',
      'First line.\nUse the blue-green deployment for v2.\nThanks.',
    );
    await app.gateway.runtime.idle();
    await byTestId('nav-session').click();
    await page.keyboard.press('f');
    const input = byTestId('search-input');
    await input.fill('deploy');
    await page.locator('[data-testid="search"][data-ready="true"]').waitFor();
    const group = page.locator('[data-testid="search-group"][data-session-key="agent:main:subagent:deploy"]');
    await group.waitFor();
    expect(await group.locator('h2').getAttribute('title')).toBe('agent:main:subagent:deploy');
    const message = group.locator('[data-testid="search-match"][data-field="message"]').first();
    expect(await message.locator('[data-testid="search-line"]').textContent()).toBe(
      'Use the blue-green deployment for v2.',
    );
    expect(await message.locator('mark').textContent()).toBe('deployment');
    // The key matched too (…:deploy).
    expect(await group.locator('[data-testid="search-match"][data-field="key"]').count()).toBe(1);
    await screenshot(page, 'search');
    await message.locator('button').click();
    const focused = page.locator('[data-testid="transcript-message"][data-focused="true"]');
    await focused.waitFor();
    expect(await focused.textContent()).toContain('blue-green deployment');

    await page.keyboard.press('f');
    await byTestId('search-input').fill('qqqzzz');
    await byTestId('search-empty').waitFor();
    expect(await byTestId('search-empty').textContent()).toBe('No matches for “qqqzzz”.');
    // The palette offers its words as a search when no command has that name.
    await page.keyboard.press('Control+k');
    await byTestId('palette-input').fill('blue-green');
    const items = byTestId('palette-item');
    expect(await items.allTextContents()).toEqual(['Search sessions and transcripts for “blue-green”f']);
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="search"][data-ready="true"]').waitFor();
    expect(await byTestId('search-input').inputValue()).toBe('blue-green');
    expect(await byTestId('search-group').count()).toBe(1);
    expect(browser.errors).toEqual([]);
  });
});

describe('the demo', () => {
  it('starts from "How Sightline works" and can be reset to a fresh one', async () => {
    await page.keyboard.press('?');
    await byTestId('guide-demo').click();
    await page
      .locator('[data-testid="session-pane"][data-session-key="agent:demo:main"]')
      .waitFor({ timeout: 15_000 });
    const workers = () =>
      app.gateway.sessions
        .list()
        .filter((s) => s.parentKey === 'agent:demo:main')
        .map((s) => s.key)
        .sort();
    const before = workers();
    expect(before).toHaveLength(3);
    await page.keyboard.press('?');
    await byTestId('guide-demo-reset').waitFor();
    page.once('dialog', (d) => void d.accept());
    await page.keyboard.press('Control+k');
    await byTestId('palette-input').fill('reset the demo');
    await page.keyboard.press('Enter');
    await expect
      .poll(() => workers().length === 3 && workers().every((k) => !before.includes(k)), { timeout: 15_000 })
      .toBe(true);
    for (const k of before)
      await expect
        .poll(() => page.locator(`[data-testid="session-row"][data-session-key="${k}"]`).count())
        .toBe(0);
    await page.locator('[data-testid="session-pane"][data-session-key="agent:demo:main"]').waitFor();
    expect(browser.errors).toEqual([]);
  });
});
