// A live adopted transcript in the browser: a real Claude Code transcript (test/fixtures/live) is
// adopted from the catalog as it was after its first run; the rows of the resumed run are then
// appended upstream, the monitor checks, and the transcript view shows the new messages exactly
// once, marked as Claude Code's.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot, type App, type Browser } from './helpers';
import { useAppInBrowser } from '../helpers/app-in-browser';

const ID = '5f16324e-5f90-4780-bb10-1bd0e51f8b27';
const FIXTURE = path.resolve(`test/fixtures/live/claude/projects/-tmp-ccfx-project/${ID}.jsonl`);
let app: App;
let browser: Browser & { errors: string[] };
let page: Page;
let file: string;
const rows = fs
  .readFileSync(FIXTURE, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => `${l}\n`);

useAppInBrowser((s) => ({ app, browser, page } = s), {
  seed: (app) => {
    file = path.join(app.catalogRoot, 'claude', '-tmp-ccfx-project', `${ID}.jsonl`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, rows.slice(0, 5).join(''));
  },
});

const messages = () => page.locator('[data-testid="transcript-message"]');

describe('a live adopted transcript', () => {
  it('adopts a Claude Code session and shows what was added upstream, once', async () => {
    await page.locator('[data-testid="nav-catalog"]').click();
    const entry = page.locator('[data-testid="catalog-entry"][data-provider="claude"]');
    await entry.waitFor({ timeout: 15_000 });
    await entry.locator('[data-testid="catalog-adopt"]').click();
    const key = `agent:main:adopted:claude:${ID}`;
    await page.locator(`[data-testid="session-pane"][data-session-key="${key}"]`).waitFor();
    await page.locator('[data-testid="transcript"][data-ready="true"]').waitFor();
    await expect.poll(() => messages().count()).toBe(3);
    expect(await page.locator('[data-testid="from-upstream"]').count()).toBe(0);

    fs.appendFileSync(file, rows.slice(5).join(''));
    await app.gateway.catalog.tick();
    await expect.poll(() => messages().count(), { timeout: 10_000 }).toBe(8);
    // A second check finds nothing new: nothing shows twice. The signal is the gateway's own:
    // the check appends nothing, so no push can be on its way to the page.
    const appended: string[] = [];
    const off = app.gateway.events.on((e) => {
      if (e.type === 'transcript:appended' && e.message.sessionKey === key) appended.push(e.message.text);
    });
    await app.gateway.catalog.tick();
    off();
    expect(appended).toEqual([]);
    expect(app.gateway.transcripts.all(key)).toHaveLength(8);
    expect(await messages().count()).toBe(8);
    const upstream = page.locator('[data-testid="transcript-message"][data-upstream="claude"]');
    expect(await upstream.count()).toBe(5);
    expect(await upstream.locator('[data-testid="from-upstream"]').first().textContent()).toBe(
      'from Claude Code',
    );
    await page
      .locator('[data-testid="transcript-message"][data-actor="human"]', {
        hasText: 'Now list the TODO comments',
      })
      .waitFor();
    expect(
      await page
        .locator('[data-testid="transcript-message"]', { hasText: 'There is one TODO comment' })
        .count(),
    ).toBe(1);
    await screenshot(page, 'live-transcript');
    // After a reload the transcript is read from the gateway: still each message once.
    await page.reload();
    await page.locator('[data-testid="app"][data-ready="true"]').waitFor();
    expect(app.gateway.transcripts.all(key)).toHaveLength(8);
    expect(browser.errors).toEqual([]);
  });
});
