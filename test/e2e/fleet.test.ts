// The product's story in the browser: demo fleet → a human steps into a worker → one notice for
// the coordinator → it reconciles; cancelling a worker; catalog and settings. Saves screenshots.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { writeClaude } from '../catalog/fixtures';
import { row, screenshot, type App, type Browser } from './helpers';
import { useAppInBrowser } from '../helpers/app-in-browser';
import { noticeText } from '../helpers/spec';

const COORDINATOR = 'agent:demo:main';
let app: App;
let browser: Browser & { errors: string[] };
let page: Page;
let workers: string[] = [];

useAppInBrowser((s) => ({ app, browser, page } = s));

const sel = {
  pane: (key: string) => `[data-testid="session-pane"][data-session-key="${key}"]`,
  msg: (actor: string) => `[data-testid="transcript-message"][data-actor="${actor}"]`,
};

async function openSession(key: string) {
  await row(page, key).click();
  await page.locator(sel.pane(key)).waitFor();
  await page.locator('[data-testid="tab-transcript"]').click();
  await page.locator('[data-testid="transcript"][data-ready="true"]').waitFor();
}

async function sendAsHuman(key: string, text: string) {
  await openSession(key);
  await page.locator('[data-testid="composer-input"]').fill(text);
  await page.locator('[data-testid="composer-input"]').press('Enter');
  await page.locator(sel.msg('human'), { hasText: text }).waitFor();
}

describe('supervising the demo fleet', () => {
  it('offers the demo fleet on an empty start and shows the tree', async () => {
    await page.locator('[data-testid="empty-state"]').waitFor();
    await screenshot(page, 'empty-state');
    await page.locator('[data-testid="start-demo"]').click();
    await page.locator(sel.pane(COORDINATOR)).waitFor({ timeout: 15_000 });
    workers = app.gateway.sessions
      .list()
      .filter((s) => s.parentKey === COORDINATOR)
      .map((s) => s.key);
    expect(workers).toHaveLength(3);
    for (const w of workers) {
      expect(w).toMatch(/^agent:demo:subagent:/);
      await expect.poll(() => row(page, w).getAttribute('data-kind')).toBe('subagent');
    }
    await expect
      .poll(() =>
        page.locator('[data-testid="agent-group"][data-agent-id="demo"] [data-testid="session-row"]').count(),
      )
      .toBe(4);
    await page.locator(sel.msg('human'), { hasText: 'Prepare the v2.0 release notes' }).waitFor();
    await page
      .locator('[data-testid="goal-objective"]', { hasText: 'Ship the v2.0 release notes' })
      .waitFor();
    // The coordinator names its workers by their labels, not their keys.
    const spawned = page.locator(sel.msg('agent'), { hasText: 'Spawned' }).first();
    expect(await spawned.locator('.text').innerText()).toBe(
      'Spawned “research worker”. Spawned “draft worker”. Spawned “review worker”.',
    );
    await screenshot(page, 'fleet-coordinator');
  });

  it('records a human step-in; the coordinator gets a notice and reconciles', async () => {
    const [w1] = workers as [string];
    await sendAsHuman(w1, 'Use the changelog from the release branch, not main.');
    await page.locator('[data-testid="tab-timeline"]').click();
    const hdm = page.locator('[data-testid="timeline-row"][data-kind="human_direct_message"]');
    await hdm.waitFor();
    expect(await hdm.count()).toBe(1);
    expect(await hdm.locator('[data-testid="timeline-summary"]').textContent()).toBe(
      'human message via desktop',
    );
    await screenshot(page, 'timeline');

    await openSession(COORDINATOR);
    // The worker by its label, not its key; no sequence numbers read as its versions.
    const w1Label = app.gateway.sessions.get(w1)!.label!;
    const reconciled = page.locator(sel.msg('agent'), { hasText: `Reconciled “${w1Label}”` });
    await reconciled.waitFor({ timeout: 20_000 });
    const said = (await reconciled.textContent())!;
    expect(said).toContain('human message via desktop (by a human)');
    expect(said).toContain(
      'A human intervened directly in that session, so I will take their instruction into account before acting.',
    );
    expect(said).not.toContain(w1);
    expect(said).not.toMatch(/#\d|state version|\bv\d/);
    // Its session_status result as fields: times as dates, not epoch milliseconds; raw JSON one click away.
    const result = page
      .locator('[data-testid="transcript-message"][data-role="tool"]', { hasText: 'session_status' })
      .last()
      .locator('[data-testid="tool-result-fields"]');
    expect(await result.innerText()).toContain('occurred at');
    expect(await result.innerText()).not.toMatch(/\b1\d{12}\b/);
    expect(await result.locator('time').count()).toBeGreaterThan(0);
    await result.locator('[data-testid="tool-result-raw-toggle"]').click();
    expect(await result.locator('[data-testid="tool-result-raw"]').textContent()).toMatch(
      /"occurredAt": \d{13}/,
    );
    await result.locator('[data-testid="tool-result-raw-toggle"]').click();
    // A scripted agent is not a model: no token counts for it or its tree, none invented.
    const usage = ['token-usage', 'tree-usage'].map((id) => `${sel.pane(COORDINATOR)} [data-testid="${id}"]`);
    expect(await page.locator(usage.join(', ')).count()).toBe(0);
    // The notice it read says where it reconciled to as a log position, not as a version "vN".
    const notice = page.locator(`${sel.pane(COORDINATOR)} [data-testid="notice-reconciled"]`).last();
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(/^ · reconciled through session_status up to #\d+ at \S/);
    // Its run ended while the person looked at it: idle, not "done — unseen".
    await expect
      .poll(
        () => row(page, COORDINATOR).locator('[data-testid="session-status"]').getAttribute('data-status'),
        {
          timeout: 15_000,
        },
      )
      .toBe('idle');
  });

  it('shows exactly one pending notice in the inbox history while the wake is coalesced', async () => {
    const w2 = workers[1]!;
    const lastSeen = app.gateway.state.cursor(COORDINATOR, w2)!.lastSeen;
    await sendAsHuman(w2, 'Keep the notes under one page.');
    await sendAsHuman(w2, 'And mention the migration guide.');
    await page.locator('[data-testid="nav-inbox"]').click();
    // A notice is for the watcher, not the person: the queue lists only the workers' finished runs
    // not seen yet (done — unseen), the history shows the notice.
    await page.locator('[data-testid="inbox"][data-ready="true"]').waitFor();
    const other = page.locator('[data-testid="inbox-item"]:not([data-type="done_unseen"])');
    expect(await other.count()).toBe(0);
    await page.locator('[data-testid="inbox-tab-history"]').click();
    const pending = page.locator('[data-testid="history-pending"]');
    await pending.first().waitFor();
    expect(await pending.count()).toBe(1);
    expect(await pending.first().getAttribute('data-watcher')).toBe(COORDINATOR);
    expect(await pending.first().locator('.notice-text').textContent()).toBe(noticeText(w2, lastSeen));

    await openSession(w2);
    await page.locator('[data-testid="tab-watchers"]').click();
    const watcher = page.locator(`[data-testid="watched-by"][data-watcher="${COORDINATOR}"]`);
    await watcher.waitFor();
    expect(await watcher.locator('[data-testid="cursor-L"]').textContent()).toBe(String(lastSeen));
    expect(await watcher.locator('[data-testid="cursor-notice"]').textContent()).toBe(
      noticeText(w2, lastSeen),
    );
    await screenshot(page, 'watchers');

    // `n` goes to the next thing that needs the person, and says so when nothing does.
    await page.locator('body').press('n');
    expect(await page.locator('[data-testid="flash"]').textContent()).toBe('Nothing needs you right now.');
  });

  it('cancels a running worker and logs run_failed (cancelled)', async () => {
    const w3 = workers[2]!;
    await openSession(w3);
    const cancel = page.locator('[data-testid="cancel-run"]');
    await cancel.waitFor(); // shown only while a run is live
    await cancel.click();
    await expect
      .poll(() =>
        page
          .locator(`${sel.pane(w3)} [data-testid="run-status"]`)
          .first()
          .getAttribute('data-status'),
      )
      .toBe('cancelled');
    await page.locator('[data-testid="tab-timeline"]').click();
    const failed = page.locator('[data-testid="timeline-row"][data-kind="run_failed"]');
    await failed.waitFor();
    expect(await failed.locator('[data-testid="timeline-summary"]').textContent()).toBe(
      'child run cancelled',
    );
    expect(await failed.locator('[data-testid="timeline-payload"]').textContent()).toBe(
      '{"outcome":"cancelled"}',
    );
    // Filters: by kind, then by actor.
    const rows = page.locator('[data-testid="timeline-row"]');
    await expect.poll(() => rows.count()).toBe(2);
    await page.locator('[data-testid="filter-kind-run_failed"]').click();
    await expect.poll(() => rows.count()).toBe(1);
    await page.locator('[data-testid="filter-kind-run_failed"]').click();
    await page.locator('[data-testid="filter-actor-human"]').click();
    await expect.poll(() => rows.count()).toBe(0);
    await page.locator('[data-testid="filter-actor-human"]').click();
    await expect.poll(() => rows.count()).toBe(2);
  });

  it('keeps the notices in the history once the coordinator has reconciled (and once more for the interleaved change)', async () => {
    const w2 = workers[1]!;
    await page.locator('[data-testid="nav-inbox"]').click();
    await page.locator('[data-testid="inbox-tab-history"]').click();
    // Drained with M past the frozen N: exactly one fresh notice opens, then it is drained too.
    await expect
      .poll(
        () => {
          const c = app.gateway.state.cursor(COORDINATOR, w2)!;
          return c.lastSeen === c.material && app.gateway.notices.peek(COORDINATOR).length === 0;
        },
        { timeout: 30_000 },
      )
      .toBe(true);
    await expect.poll(() => page.locator('[data-testid="history-pending"]').count()).toBe(0);
    // Each drained notice, with the session_status call that reconciled it.
    const told = page.locator(`[data-testid="history-item"][data-target="${w2}"]`);
    await expect.poll(() => told.count(), { timeout: 15_000 }).toBe(2);
    await expect
      .poll(() => told.evaluateAll((els) => els.map((e) => e.getAttribute('data-reconciled'))), {
        timeout: 15_000,
      })
      .toEqual(['true', 'true']);
    expect(await told.first().locator('[data-testid="history-reconciled"]').textContent()).toMatch(
      new RegExp(`read its changes up to #${app.gateway.state.version(w2)} at`),
    );
    await screenshot(page, 'inbox');
    await openSession(COORDINATOR);
    const reconciles = page.locator(sel.msg('agent'), {
      hasText: `Reconciled “${app.gateway.sessions.get(w2)!.label}”`,
    });
    await expect.poll(() => reconciles.count(), { timeout: 15_000 }).toBe(2);
    // In the watcher's own transcript, each notice it read is a system line before its reconcile.
    const lines = page.locator(`[data-testid="transcript-notice"][data-target="${w2}"]`);
    await expect.poll(() => lines.count()).toBe(2);
  });

  it('lists the catalog and adopts a session', async () => {
    writeClaude(`${app.catalogRoot}/claude`);
    await page.locator('[data-testid="nav-catalog"]').click();
    const entry = page.locator('[data-testid="catalog-entry"][data-provider="claude"]');
    await entry.waitFor({ timeout: 15_000 });
    expect(await page.locator('[data-testid="catalog-entry"]').count()).toBe(1);
    await screenshot(page, 'catalog');
    await entry.locator('[data-testid="catalog-adopt"]').click();
    const adopted = page.locator('[data-testid="session-row"][data-kind="adopted"]');
    await adopted.waitFor();
    await page.locator('[data-testid="session-pane"]').waitFor();
    // The key is on hover and copy; the header says what the session is, in words.
    expect(await page.locator('[data-testid="session-key"]').getAttribute('title')).toMatch(
      /^agent:main:adopted:claude:/,
    );
    expect(await page.locator('[data-testid="session-tool"]').textContent()).toBe('Claude Code');
    // Its folder, from the transcript (the fixture's cwd).
    expect(await page.locator('[data-testid="session-cwd"]').textContent()).toBe('/home/ana/src/ledger-api');
    // Times carry their date when not today: the transcript was written on 2 March 2026.
    await page.locator('[data-testid="tab-transcript"]').click();
    await page.locator('[data-testid="transcript-message"]').first().waitFor();
    const stamps = await page.locator('[data-testid="transcript-message"] header time').allInnerTexts();
    expect(stamps[0]).toMatch(/^Mar \d{1,2}, 2026, \d{2}:\d{2}:\d{2} [AP]M$/);
    // Adopted a moment ago: no global sequence read as its version ("v111"); the log's positions
    // are written as positions (#) and say so on hover.
    const key = (await page.locator('[data-testid="session-pane"]').getAttribute('data-session-key'))!;
    const head = app.gateway.state.version(key);
    expect(head).toBeGreaterThan(1);
    for (const text of [
      await page.locator('[data-testid="session-pane"]').innerText(),
      await row(page, key).innerText(),
    ])
      expect(text).not.toMatch(/\bv\d+\b|state version/i);
    await page.locator('[data-testid="tab-watchers"]').click();
    const position = page.locator('[data-testid="watchers-head"]');
    expect(await position.textContent()).toBe(`#${head}`);
    expect(await position.getAttribute('title')).toContain('not a count of this session’s changes');
    expect(await page.locator('[data-testid="watchers"]').innerText()).not.toMatch(/\bv\d+\b|state version/i);
    await page.locator('[data-testid="tab-timeline"]').click();
    const adoptedRow = page.locator('[data-testid="timeline-row"][data-kind="adopted"]');
    expect(await adoptedRow.locator('span').first().textContent()).toBe(`#${head}`);
    await page.locator('[data-testid="tab-transcript"]').click();
  });

  it('saves agent settings without ever showing the API key', async () => {
    await page.locator('[data-testid="nav-settings"]').click();
    const form = page.locator('[data-testid="agent-form"][data-agent-id="main"]');
    await form.waitFor();
    await form.locator('[data-testid="agent-api-key"]').fill('sk-e2e-secret-123');
    await form.locator('[data-testid="agent-save"]').click();
    // At most the last 4 characters of a stored secret are shown (issue 14.4).
    await expect
      .poll(() => form.locator('[data-testid="agent-has-key"]').textContent())
      .toBe('key stored (…-123)');
    expect(await page.content()).not.toContain('sk-e2e-secret-123');
    await screenshot(page, 'settings');
    await page.keyboard.press('Control+k');
    await page.locator('[data-testid="command-palette"]').waitFor();
    await page.keyboard.type('coord');
    await screenshot(page, 'command-palette');
    await page.keyboard.press('Enter');
    await page.locator(sel.pane(COORDINATOR)).waitFor();
    expect(browser.errors).toEqual([]);
  });
});
