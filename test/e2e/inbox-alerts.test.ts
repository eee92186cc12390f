// An adopted session whose upstream transcript disappears: upstream_missing in the inbox and the
// sidebar, dismissed durably (the dismissal survives a reload, stored by migration 004's table).
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { CLAUDE_ID, writeClaude } from '../catalog/fixtures';
import { row, screenshot, type App } from './helpers';
import { useAppInBrowser } from '../helpers/app-in-browser';

let app: App;
let page: Page;
let adoptedKey = '';
let file = '';

useAppInBrowser((s) => ({ app, page } = s), {
  seed: (app) => {
    file = writeClaude(`${app.catalogRoot}/claude`);
    adoptedKey = app.gateway.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID }).key;
    expect(app.gateway.state.registerWatch('agent:main:main', adoptedKey)).toBe(true);
  },
});

beforeAll(async () => {
  fs.rmSync(file);
});

const alerts = () => page.locator('[data-testid="inbox-item"][data-type="upstream_missing"]');

describe('upstream_missing alerts', () => {
  it('raises one alert after three checks find the upstream missing', async () => {
    await app.gateway.catalog.tick();
    await app.gateway.catalog.tick();
    expect(app.gateway.state.timeline(adoptedKey, { kinds: ['upstream_missing'] })).toEqual([]);
    await app.gateway.catalog.tick();
    const [event] = app.gateway.state.timeline(adoptedKey, { kinds: ['upstream_missing'] });
    expect(event?.summary).toBe('upstream missing via claude');

    await row(page, adoptedKey).locator('[data-testid="alert-badge"]').waitFor();
    await page.locator('[data-testid="nav-inbox"]').click();
    await alerts().first().waitFor();
    expect(await alerts().count()).toBe(1);
    expect(await alerts().first().getAttribute('data-session-key')).toBe(adoptedKey);
    expect(await alerts().first().locator('[data-testid="inbox-readopt"]').count()).toBe(1);
    // It names the tool and the file that vanished, in words.
    const said = await alerts().first().locator('[data-testid="inbox-upstream-source"]').innerText();
    expect(said.startsWith(`Claude Code source ${file} is gone (not found in three checks, `)).toBe(true);
    expect(said.endsWith('); the upstream link was removed.')).toBe(true);
    await screenshot(page, 'inbox-upstream-missing');
  });

  it('dismisses the alert durably', async () => {
    await alerts().first().locator('[data-testid="inbox-dismiss"]').click();
    await expect.poll(() => alerts().count()).toBe(0);
    const stored = app.gateway.db.prepare('SELECT item_id FROM ui_inbox_dismissals').all() as {
      item_id: string;
    }[];
    expect(stored.map((r) => r.item_id)).toEqual([
      `upstream:${app.gateway.state.timeline(adoptedKey, { kinds: ['upstream_missing'] })[0]!.sequence}:${adoptedKey}`,
    ]);
    await page.reload();
    await page.locator('[data-testid="app"][data-ready="true"]').waitFor();
    await page.locator('[data-testid="nav-inbox"]').click();
    await page.locator('[data-testid="inbox"][data-ready="true"]').waitFor();
    expect(await alerts().count()).toBe(0);
    expect(await row(page, adoptedKey).locator('[data-testid="alert-badge"]').count()).toBe(0);
  });
});
