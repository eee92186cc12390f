// The supervisor's view at scale (issue 25): 60 sessions at 1440×900 in one-line rows, filtered
// by status and tool, sorted, grouped by project folder, picked and marked seen in bulk; no page
// scrolls sideways and Settings stays inside its window. Screenshots of each screen.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { row, taskSessions, screenshot, type App, type Browser } from './helpers';
import { useAppInBrowser } from '../helpers/app-in-browser';

let app: App;
let browser: Browser & { errors: string[] };
let page: Page;

const FOLDERS = ['/srv/projects/web-shop', '/srv/projects/billing', '/srv/projects/infra'];

useAppInBrowser((s) => ({ app, browser, page } = s), {
  seed: (app) => taskSessions(app, FOLDERS),
});

beforeAll(async () => {
  await page.setViewportSize({ width: 1440, height: 900 });
});

/** Rows whose whole box is inside the fleet list's visible part. */
async function visibleRows(p: Page): Promise<number> {
  return p.evaluate(() => {
    const tree = document.querySelector('.tree')!.getBoundingClientRect();
    return Array.from(document.querySelectorAll('[data-testid="session-row"]')).filter((el) => {
      const r = el.getBoundingClientRect();
      return r.top >= tree.top && r.bottom <= tree.bottom && r.height > 0;
    }).length;
  });
}

async function noSidewaysScroll(p: Page): Promise<void> {
  const widths = await p.evaluate(() => ({
    doc: document.documentElement.scrollWidth,
    win: window.innerWidth,
    panes: Array.from(document.querySelectorAll('.content, .sidebar, .page')).map(
      (el) => el.scrollWidth - el.clientWidth,
    ),
  }));
  expect(widths.doc).toBeLessThanOrEqual(widths.win);
  for (const over of widths.panes) expect(over).toBeLessThanOrEqual(0);
}

describe('fifty sessions at a glance', () => {
  it('shows at least 30 one-line rows at 1440×900 with 60 sessions', async () => {
    await expect.poll(() => page.locator('.tree').getAttribute('data-count')).toBe('60');
    expect(await page.locator('.tree').getAttribute('data-density')).toBe('compact');
    await screenshot(page, 'fleet-60');
    expect(await visibleRows(page)).toBeGreaterThanOrEqual(30);
    const first = row(page, 'agent:main:task-00');
    expect(await first.locator('[data-testid="row-tool"]').textContent()).toBeTruthy();
    expect(await first.locator('[data-testid="row-age"]').textContent()).toBe('now');
    await noSidewaysScroll(page);
    // The three-line row stays one choice away.
    await page.locator('[data-testid="fleet-density"]').selectOption('comfortable');
    expect(await page.locator('.tree').getAttribute('data-density')).toBe('comfortable');
    expect(await visibleRows(page)).toBeLessThan(30);
    await page.locator('[data-testid="fleet-density"]').selectOption('auto');
  });

  it('shows every fleet control whole, never a cut label', async () => {
    for (const sort of ['tree', 'activity', 'status', 'name']) {
      await page.locator('[data-testid="fleet-sort"]').selectOption(sort);
      const cut = await page.locator('[data-testid="fleet-controls"] select').evaluateAll((els) =>
        els.flatMap((el) => {
          const select = el as HTMLSelectElement;
          const style = getComputedStyle(select);
          const probe = document.createElement('span');
          probe.style.font = style.font;
          probe.style.position = 'absolute';
          probe.style.whiteSpace = 'pre';
          probe.textContent = select.selectedOptions[0]?.textContent ?? '';
          document.body.append(probe);
          const needed = probe.getBoundingClientRect().width + parseFloat(style.paddingLeft) + 12;
          probe.remove();
          return select.clientWidth < needed
            ? [`${probe.textContent} (${select.clientWidth} < ${needed})`]
            : [];
        }),
      );
      expect(cut).toEqual([]);
    }
    await page.locator('[data-testid="fleet-sort"]').selectOption('tree');
  });

  it('groups by project folder and sorts by name', async () => {
    await page.locator('[data-testid="fleet-group"]').selectOption('folder');
    const headings = page.locator('[data-testid="group-heading"]');
    // The list is virtualised: the first two folders are on screen (web-shop and the main
    // session without a folder are further down).
    await expect
      .poll(async () => (await headings.allTextContents()).slice(0, 2))
      .toEqual(['billing · 20 sessions', 'infra · 19 sessions']);
    expect(await headings.first().getAttribute('title')).toBe('/srv/projects/billing');
    await page.locator('[data-testid="fleet-sort"]').selectOption('name');
    const keys = await page
      .locator('[data-agent-id="folder:/srv/projects/billing"] [data-testid="session-row"]')
      .evaluateAll((els) => els.slice(0, 3).map((e) => e.getAttribute('data-session-key')));
    expect(keys).toEqual(['agent:main:task-01', 'agent:main:task-04', 'agent:main:task-07']);
    await screenshot(page, 'fleet-by-folder');
    await page.locator('[data-testid="fleet-group"]').selectOption('agent');
    await page.locator('[data-testid="fleet-sort"]').selectOption('tree');
  });

  it('filters by status, and by tool', async () => {
    const status = page.locator('[data-testid="fleet-status-filter"]');
    await status.selectOption('failed');
    await expect.poll(() => page.locator('.tree').getAttribute('data-count')).toBe('0');
    await status.selectOption('idle');
    await expect.poll(() => page.locator('.tree').getAttribute('data-count')).toBe('60');
    await status.selectOption('all');
    const tool = page.locator('[data-testid="fleet-tool-filter"]');
    const tools = await tool.locator('option').allTextContents();
    expect(tools[0]).toBe('Any tool');
    await tool.selectOption(tools[1]!);
    await expect.poll(() => page.locator('.tree').getAttribute('data-count')).toBe('60');
    await tool.selectOption('');
  });

  it('picks rows and marks them seen in bulk', async () => {
    await row(page, 'agent:main:task-01').click({ modifiers: ['Control'] });
    await row(page, 'agent:main:task-02').click({ modifiers: ['Control'] });
    expect(await page.locator('[data-testid="bulk-count"]').textContent()).toBe('2 picked');
    expect(await row(page, 'agent:main:task-01').getAttribute('aria-checked')).toBe('true');
    await screenshot(page, 'fleet-bulk');
    await page.locator('[data-testid="bulk-seen"]').click();
    await expect.poll(() => page.locator('[data-testid="flash"]').textContent()).toBe('Marked 2 seen.');
    expect(await page.locator('[data-testid="bulk-bar"]').count()).toBe(0);
  });

  it('opens a session with its header in words; Cancel run only while a run is live', async () => {
    await row(page, 'agent:main:task-03').click();
    await page.locator('[data-testid="session-pane"]').waitFor();
    expect(await page.locator('[data-testid="session-cwd"]').textContent()).toBe('/srv/projects/web-shop');
    expect(await page.locator('[data-testid="session-key"]').getAttribute('title')).toBe(
      'agent:main:task-03',
    );
    expect(await page.locator('[data-testid="cancel-run"]').count()).toBe(0);
    await noSidewaysScroll(page);
    // The bulk action's "Marked 2 seen." goes by itself; the screenshot is of the header alone.
    await page.locator('[data-testid="flash"]').waitFor({ state: 'detached', timeout: 10_000 });
    await screenshot(page, 'session-header');
  });

  it('Settings scrolls inside its pane, never the document, and never sideways', async () => {
    for (const size of [
      { width: 1440, height: 900 },
      { width: 1024, height: 700 },
    ]) {
      await page.setViewportSize(size);
      await page.locator('[data-testid="nav-settings"]').click();
      await page.locator('[data-testid="settings"][data-ready="true"]').waitFor();
      await page.mouse.move(900, 500);
      await page.mouse.wheel(0, 20_000);
      const fit = await page.evaluate(() => ({
        doc: document.documentElement.scrollHeight,
        scrolled: window.scrollY,
        win: window.innerHeight,
      }));
      expect(fit.doc).toBeLessThanOrEqual(fit.win);
      expect(fit.scrolled).toBe(0);
      await noSidewaysScroll(page);
      await screenshot(page, `settings-${size.width}`);
    }
    expect(browser.errors).toEqual([]);
  });

  it('cancels the picked running runs and archives the picked finished sessions in bulk', async () => {
    const gw = app.gateway;
    // A worker with a long run (scripted steps of 20 s), beside two sessions that are not running.
    gw.agents.save({ id: 'main', providerSettings: { stepMs: '20000', steps: '3' }, heartbeatSeconds: 0 });
    const r = await gw.tools.call('agent:main:main', 'sessions_spawn', { task: 'slow work' });
    const worker = (r as { details: { childSessionKey: string } }).details.childSessionKey;
    await expect.poll(() => gw.runtime.sessionStatus(worker), { timeout: 10_000 }).toBe('running');
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.locator('[data-testid="nav-session"]').click();
    await page.locator('[data-testid="fleet-filter"]').fill('');
    const picks = [worker, 'agent:main:task-04', 'agent:main:task-05'];
    for (const key of picks) await row(page, key).click({ modifiers: ['Control'] });
    expect(await page.locator('[data-testid="bulk-count"]').textContent()).toBe('3 picked');
    const cancel = page.locator('[data-testid="bulk-cancel"]');
    await expect.poll(() => cancel.textContent()).toBe('Cancel runs (1)');
    await cancel.click();
    await expect.poll(() => page.locator('[data-testid="flash"]').textContent()).toBe('Cancelled 1 run.');
    await expect.poll(() => gw.runs.list(worker).at(-1)?.status, { timeout: 10_000 }).toBe('cancelled');
    // The picks are cleared; picked again, all three are finished now and go to the archive.
    for (const key of picks) await row(page, key).click({ modifiers: ['Control'] });
    const archive = page.locator('[data-testid="bulk-archive"]');
    await expect.poll(() => archive.textContent()).toBe('Archive finished (3)');
    await archive.click();
    await expect.poll(() => page.locator('[data-testid="flash"]').textContent()).toBe('Archived 3.');
    expect(picks.map((k) => gw.sessions.get(k)?.archived)).toEqual([true, true, true]);
    await expect.poll(() => row(page, 'agent:main:task-04').count()).toBe(0);
    expect(browser.errors).toEqual([]);
  });
});
