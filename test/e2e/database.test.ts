// A damaged database and restoring a backup, end to end in browser mode (issue 14.6): the app
// moves a damaged file aside and says so with the paths; Settings → Database restores a backup
// (close → swap → reopen), the page reloads on the restored data, and the replaced database is kept.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeDatabase, writeNotADatabase } from '../db/damage';
import { ensureRenderer, openBrowser, row, screenshot, startApp, type App, type Browser } from './helpers';

let app: App | undefined;
let browser: (Browser & { errors: string[] }) | undefined;

beforeAll(() => ensureRenderer(), 120_000);
afterEach(async () => {
  await browser?.close();
  await app?.close();
  browser = undefined;
  app = undefined;
});

describe('damaged database (browser mode)', () => {
  it('moves a non-database file aside, starts empty and shows both paths', async () => {
    app = await startApp({ prepare: (dir) => writeNotADatabase(dir) });
    const file = path.join(app.dataDir, 'sightline.db');
    const moved = fs.readdirSync(app.dataDir).filter((f) => f.startsWith('sightline.db.corrupt-'));
    expect(moved).toHaveLength(1);
    browser = await openBrowser(app.server.url);
    const notice = browser.page.getByTestId('database-notice');
    await notice.waitFor();
    expect(await notice.getAttribute('data-kind')).toBe('damaged');
    expect(await notice.textContent()).toBe(
      `The database at ${file} was damaged (file is not a database). ` +
        `It was moved to ${path.join(app.dataDir, moved[0]!)}. ` +
        'There was no good backup: Sightline started with an empty database.×',
    );
    await screenshot(browser.page, 'database-damaged');
    await browser.page.getByRole('button', { name: 'Dismiss database notice' }).click();
    await notice.waitFor({ state: 'detached' });
    expect(browser.errors).toEqual([]);
  });
});

describe('restoring a backup from Settings (browser mode)', () => {
  it('swaps the backup in, reloads the page on it and keeps the replaced database', async () => {
    app = await startApp({ prepare: (dir) => writeDatabase(dir, 10, 'agent:main:in-backup') });
    const backup = await app.gateway.backups.runIfDue();
    expect(backup?.name).toMatch(/^sightline-.*\.db$/);
    app.gateway.sessions.create({ key: 'agent:main:after-backup' });

    browser = await openBrowser(app.server.url);
    const { page } = browser;
    await row(page, 'agent:main:after-backup').waitFor();
    await page.getByTestId('nav-settings').click();
    const item = page.locator(`[data-testid="backup"][data-name="${backup!.name}"]`);
    await item.waitFor();
    expect(await page.getByTestId('database-path').textContent()).toBe(
      path.join(app.dataDir, 'sightline.db'),
    );
    await item.getByTestId('backup-restore').click();
    await screenshot(page, 'database-restore');
    await item.getByTestId('backup-restore-confirm').click();

    // The page reloads on the restored database and says what happened.
    const notice = page.getByTestId('database-notice');
    await notice.waitFor({ timeout: 15_000 });
    expect(await notice.getAttribute('data-kind')).toBe('restored');
    const kept = fs.readdirSync(app.dataDir).filter((f) => f.startsWith('sightline.db.replaced-'));
    expect(kept).toHaveLength(1);
    expect(await notice.textContent()).toBe(
      `Restored the backup ${backup!.name}. The database it replaced is kept at ${path.join(app.dataDir, kept[0]!)}.×`,
    );
    await page.locator('[data-testid="app"][data-ready="true"]').waitFor();
    await row(page, 'agent:main:in-backup').waitFor();
    expect(await row(page, 'agent:main:after-backup').count()).toBe(0);
    expect(app.gateway.sessions.get('agent:main:after-backup')).toBeUndefined();
    expect(browser.errors).toEqual([]);
  });
});
