// Keyboard only: palette, session stepping, tabs, views, filter, composer. No mouse at all.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot, type App } from './helpers';
import { useAppInBrowser } from '../helpers/app-in-browser';

const COORDINATOR = 'agent:demo:main';
let app: App;
let page: Page;

useAppInBrowser((s) => ({ app, page } = s));

const selected = () =>
  page.locator('[data-testid="session-row"][aria-selected="true"]').getAttribute('data-session-key');
const focusedKey = () =>
  page.evaluate(() => document.activeElement?.getAttribute('data-session-key') ?? null);
const focusedTestId = () => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? null);

describe('keyboard-only navigation', () => {
  it('starts the demo fleet from the command palette', async () => {
    await page.keyboard.press('Control+k');
    await page.locator('[data-testid="command-palette"]').waitFor();
    expect(await focusedTestId()).toBe('palette-input');
    await page.keyboard.type('start demo');
    expect(await page.locator('[data-testid="palette-item"]').count()).toBe(1);
    await page.keyboard.press('Enter');
    await page
      .locator(`[data-testid="session-pane"][data-session-key="${COORDINATOR}"]`)
      .waitFor({ timeout: 15_000 });
    expect(await page.locator('[data-testid="command-palette"]').count()).toBe(0);
  });

  it('steps through sessions with j/k and switches tabs with 1/2/3', async () => {
    const workers = app.gateway.sessions
      .list()
      .filter((s) => s.parentKey === COORDINATOR)
      .map((s) => s.key);
    expect(workers).toHaveLength(3);
    // Sidebar order: agent `demo` (main first, then its children in spawn order), then agent `main`.
    const order = await page
      .locator('[data-testid="session-row"]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-session-key')));
    expect(order.slice(0, 4)).toEqual([COORDINATOR, ...workers]);
    expect(await selected()).toBe(COORDINATOR);
    await page.keyboard.press('j');
    await expect.poll(selected).toBe(workers[0]);
    // The row takes focus in the next animation frame after it is selected.
    await expect.poll(focusedKey).toBe(workers[0]);
    await page.keyboard.press('j');
    await expect.poll(selected).toBe(workers[1]);
    await page.keyboard.press('k');
    await expect.poll(selected).toBe(workers[0]);

    // Tabs read as names, not counts: the shortcut is a key on hover, not "Transcript 1".
    const tabs = page.locator('[role="tablist"][aria-label="Session views"] [role="tab"]');
    expect(await tabs.evaluateAll((els) => els.map((e) => (e as HTMLElement).innerText.trim()))).toEqual([
      'Transcript',
      'Signal log',
      'Watchers',
    ]);
    expect(await tabs.evaluateAll((els) => els.map((e) => e.getAttribute('aria-keyshortcuts')))).toEqual([
      '1',
      '2',
      '3',
    ]);
    await page.keyboard.press('2');
    await page.locator('[data-testid="timeline"][data-ready="true"]').waitFor();
    await page.locator('[data-testid="timeline-row"][data-kind="child_spawned"]').waitFor();
    await page.keyboard.press('3');
    const card = page.locator(`[data-testid="watched-by"][data-watcher="${COORDINATOR}"]`);
    await card.waitFor();
    // The watcher by its label; its key is secondary.
    expect(await card.locator('[data-testid="cursor-session"]').innerText()).toBe(
      app.gateway.sessions.get(COORDINATOR)!.label,
    );
    await page.keyboard.press('1');
    await page.locator('[data-testid="transcript"]').waitFor();
  });

  it('writes as a human with m and Enter', async () => {
    await page.keyboard.press('m');
    await expect.poll(focusedTestId).toBe('composer-input');
    await page.keyboard.type('Please cite the PR numbers.');
    await page.keyboard.press('Enter');
    await page
      .locator('[data-testid="transcript-message"][data-actor="human"]', {
        hasText: 'Please cite the PR numbers.',
      })
      .waitFor();
    await page.keyboard.press('Escape');
    expect(await focusedTestId()).not.toBe('composer-input');
  });

  it('filters the fleet with / and opens a row with arrows and Enter', async () => {
    const workers = app.gateway.sessions
      .list()
      .filter((s) => s.parentKey === COORDINATOR)
      .map((s) => s.key);
    await page.keyboard.press('/');
    expect(await focusedTestId()).toBe('fleet-filter');
    await page.keyboard.type('subagent');
    await expect.poll(() => page.locator('[data-testid="session-row"]').count()).toBe(3);
    await page.keyboard.press('ArrowDown');
    expect(await focusedKey()).toBe(workers[0]);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await focusedKey()).toBe(workers[2]);
    await page.keyboard.press('Enter');
    await page.locator(`[data-testid="session-pane"][data-session-key="${workers[2]}"]`).waitFor();
  });

  it('lists every shortcut on the ? page', async () => {
    await page.keyboard.press('?');
    const list = page.locator('[data-testid="shortcut-list"]');
    await list.waitFor();
    const keys = await list.locator('[data-testid="shortcut-keys"]').allInnerTexts();
    expect(keys).toContain('Ctrl K or ⌘K');
    expect(keys).toContain('⇧N');
    expect(keys).toContain('j or k');
    expect(keys).toContain('?');
    expect(await list.locator('dd').allInnerTexts()).toContain('Transcript tab of the open session');
    expect(await list.isVisible()).toBe(true);
    await screenshot(page, 'shortcuts');
  });

  it('reaches inbox, catalog and settings by key and back with the palette', async () => {
    await page.keyboard.press('i');
    await page.locator('[data-testid="inbox"]').waitFor();
    await page.keyboard.press('s');
    await page.locator('[data-testid="settings"][data-ready="true"]').waitFor();
    await page.keyboard.press('c');
    await page.locator('[data-testid="catalog"]').waitFor();
    await page.keyboard.press('Control+k');
    await page.keyboard.type('Demo coordinator');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    await page.locator(`[data-testid="session-pane"][data-session-key="${COORDINATOR}"]`).waitFor();
    await page.keyboard.press('Control+k');
    await page.keyboard.press('Escape');
    expect(await page.locator('[data-testid="command-palette"]').count()).toBe(0);
  });
});
