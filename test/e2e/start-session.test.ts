// Running a real fleet from the app, in browser mode: the fixture ACP agent is installed from the
// registry (served locally, like the live one), a session is started with it in a temp folder
// with the main session as parent, a human steps in, and the parent gets its notice and
// reconciles; the agent's edits show as diffs with the files-changed count; and the lifecycle:
// archive, reset and delete, each with its confirmation. Saves the README's screenshots.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { serveFixtureRegistry, startRegistryServer, type RegistryServer } from '../helpers/registry-server';
import {
  openSession as openTranscript,
  row,
  screenshot,
  sel,
  tmpDir,
  type App,
  type Browser,
} from './helpers';
import { useAppInBrowser } from '../helpers/app-in-browser';
import { MAIN } from '../helpers/spec';

let app: App;
let registry: RegistryServer;
let browser: Browser & { errors: string[] };
let page: Page;
let folder: string;
let child = '';

beforeAll(async () => {
  registry = await startRegistryServer();
  serveFixtureRegistry(registry);
}, 120_000);

afterAll(async () => {
  await registry?.close();
  if (folder) fs.rmSync(folder, { recursive: true, force: true });
});

useAppInBrowser((s) => ({ app, browser, page } = s), {
  start: () => ({
    gateway: { acpRegistryUrl: registry.indexUrl, acpRegistryAllowLoopbackHttp: true },
  }),
  seed: () => {
    folder = fs.realpathSync(tmpDir('sightline-e2e-project-'));
  },
});

const openSession = (key: string) => openTranscript(page, key);

async function fillNewSession(opts: { message: string; label: string; parent?: string }): Promise<void> {
  await page.locator('[data-testid="new-session"]').click();
  const dialog = page.locator('[data-testid="new-session-dialog"]');
  await dialog.waitFor();
  await page.locator('[data-testid="start-runner"]').selectOption('acp:fixture-agent');
  await page.locator('[data-testid="start-cwd"]').fill(folder);
  await page.locator('[data-testid="start-cwd-check"]', { hasText: `✓ ${folder}` }).waitFor();
  await page.locator('[data-testid="start-label"]').fill(opts.label);
  if (opts.parent) await page.locator('[data-testid="start-parent"]').selectOption(opts.parent);
  await page.locator('[data-testid="start-message"]').fill(opts.message);
}

describe('running a real fleet from the app', () => {
  it('lists the registry and installs the fixture agent after showing what it will do', async () => {
    await page.locator('[data-testid="nav-settings"]').click();
    const section = page.locator('[data-testid="acp-registry"][data-ready="true"]');
    await section.waitFor({ timeout: 15_000 });
    expect(await page.locator('[data-testid="registry-source"]').getAttribute('data-source')).toBe('live');
    const agents = page.locator('[data-testid="registry-agent"]');
    expect(await agents.count()).toBe(13);
    const fixture = page.locator('[data-testid="registry-agent"][data-agent-id="fixture-agent"]');
    expect(await fixture.locator('img').getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, 'acp-registry');

    await fixture.locator('[data-testid="registry-add"]').click();
    const plan = fixture.locator('[data-testid="registry-plan"]');
    await plan.waitFor();
    expect(await plan.textContent()).toContain(`${registry.url}/download/fixture-agent-1.0.0.tar.gz`);
    expect(await plan.locator('[data-testid="registry-plan-command"]').textContent()).toBe(
      `${app.dataDir}/acp-agents/fixture-agent/1.0.0/fixture-agent-1.0.0/fixture-agent --acp`,
    );
    expect(registry.hits.filter((h) => h.startsWith('/download/'))).toEqual([]);
    await fixture.locator('[data-testid="registry-install"]').click();
    // Before anything is downloaded or run, the person allows the exact command line (issue 14).
    const consent = page.locator('[data-testid="consent-prompt"]');
    await consent.waitFor();
    expect(await consent.locator('[data-testid="consent-title"]').textContent()).toBe(
      `Download Fixture Agent 1.0.0 from ${new URL(registry.url).host} into ${app.dataDir}/acp-agents/fixture-agent/1.0.0 and run it?`,
    );
    expect(await consent.locator('[data-testid="consent-program"]').textContent()).toBe(
      `${app.dataDir}/acp-agents/fixture-agent/1.0.0/fixture-agent-1.0.0/fixture-agent`,
    );
    expect(registry.hits.filter((h) => h.startsWith('/download/'))).toEqual([]);
    await consent.locator('[data-testid="consent-allow"]').click();
    await consent.waitFor({ state: 'detached' });
    await fixture.locator('[data-testid="registry-note"]', { hasText: 'Added the ACP profile' }).waitFor({
      timeout: 20_000,
    });
    await fixture.locator('[data-testid="registry-installed"]').waitFor();
    const card = page.locator('[data-testid="acp-profile"][data-profile-id="fixture-agent"]');
    const sha = app.gateway.acp.registry.installs.get('fixture-agent')!.sha256!;
    expect(await card.locator('[data-testid="acp-profile-sha256"]').textContent()).toBe(sha);
  });

  it('starts a session with the agent in a folder, watched by the main session', async () => {
    await fillNewSession({
      label: 'Fix the parser',
      message: 'answer: what is in this folder?',
      parent: MAIN,
    });
    await screenshot(page, 'new-session');
    await page.locator('[data-testid="start-submit"]').click();
    await page.locator('[data-testid="new-session-dialog"]').waitFor({ state: 'detached', timeout: 20_000 });
    child = app.gateway.sessions.list().find((s) => s.label === 'Fix the parser')!.key;
    expect(child).toMatch(/^agent:main:acp:[0-9a-f]{8}$/);
    await page.locator(sel.pane(child)).waitFor();
    expect(await page.locator('[data-testid="session-cwd"]').textContent()).toBe(folder);
    await page.locator(sel.msg('agent'), { hasText: 'You said: answer: what is in this folder?' }).waitFor({
      timeout: 20_000,
    });
    // The first message was the person's turn: the parent got one notice and reconciled.
    const seeded = app.gateway.state.changesSince(child, 0).events[0]!.sequence;
    await openSession(MAIN);
    await page
      .locator(sel.msg('agent'), { hasText: 'Reconciled “Fix the parser”' })
      .first()
      .waitFor({ timeout: 20_000 });
    await page.locator('[data-testid="tool-call"]', { hasText: 'session_status' }).first().waitFor();
    // The reconcile used the notice's changesSince: the version seeded at child_spawned.
    const calls = app.gateway.transcripts
      .all(MAIN)
      .flatMap((m) => m.toolCalls ?? [])
      .filter((c) => c.name === 'session_status');
    expect(calls[0]?.arguments).toEqual({ sessionKey: child, changesSince: seeded });
  });

  it('a human step-in reaches the parent as a notice, and it reconciles', async () => {
    await openSession(child);
    const before = app.gateway.state.version(child);
    await page.locator('[data-testid="composer-input"]').fill('diff also fix the notes');
    await page.locator('[data-testid="composer-input"]').press('Enter');
    await page.locator(sel.msg('human'), { hasText: 'diff also fix the notes' }).waitFor();
    await expect.poll(() => app.gateway.state.version(child), { timeout: 10_000 }).toBeGreaterThan(before);
    await openSession(MAIN);
    const reconcile = page.locator(sel.msg('agent'), { hasText: 'Reconciled “Fix the parser”' });
    // Within 20 s of the first wake this one is coalesced into the trailing wake (spec).
    await expect.poll(() => reconcile.count(), { timeout: 40_000 }).toBe(2);
    expect(await reconcile.last().textContent()).toContain('human message via desktop');
    expect(await reconcile.last().textContent()).toContain('A human intervened directly in that session');
  }, 60_000);

  it("shows the agent's edits as diffs and counts the files it changed", async () => {
    await openSession(child);
    const diffs = page.locator('[data-testid="diff"]');
    await expect.poll(() => diffs.count(), { timeout: 20_000 }).toBe(3);
    const edit = page.locator('[data-testid="diff"][data-path="src/app.ts"]');
    expect(await edit.locator('[data-testid="diff-counts"]').textContent()).toBe('+2 −1');
    expect(await edit.locator('[data-testid="diff-del"]').textContent()).toBe('- line 10');
    expect(await edit.locator('[data-testid="diff-add"]').allTextContents()).toEqual([
      '+ line 10 changed',
      '+ inserted after line 40',
    ]);
    const created = page.locator('[data-testid="diff"][data-path="NOTES.md"]');
    expect(await created.locator('[data-testid="diff-path"]').textContent()).toBe('NOTES.md (new file)');
    // Beyond a screenful (40 lines) a diff is collapsed until asked.
    const log = page.locator('[data-testid="diff"][data-path="docs/CHANGELOG.md"]');
    expect(await log.locator('[data-testid="diff-add"]').count()).toBe(40);
    await log.locator('[data-testid="diff-toggle"]', { hasText: 'Show all 60 lines' }).click();
    expect(await log.locator('[data-testid="diff-add"]').count()).toBe(60);
    expect(await edit.locator('[data-testid="diff-toggle"]').count()).toBe(0);
    await expect
      .poll(() => page.locator('[data-testid="files-changed"]').textContent())
      .toBe('3 files changed');
    await edit.scrollIntoViewIfNeeded();
    await screenshot(page, 'diff');
  });

  it('archives, resets and deletes a session, each after saying what goes', async () => {
    await openSession(child);
    await page.locator('[data-testid="session-archive"]').click();
    await expect.poll(() => row(page, child).count()).toBe(0);
    expect(app.gateway.sessions.get(child)?.archived).toBe(true);
    await page.locator('[data-testid="toggle-archived"]', { hasText: 'Show archived sessions (1)' }).click();
    await row(page, child).waitFor();
    await page.locator('[data-testid="session-archive"]', { hasText: 'Unarchive' }).click();
    await expect.poll(() => app.gateway.sessions.get(child)?.archived).toBeUndefined();

    const messages = app.gateway.transcripts.all(child).length;
    await page.locator('[data-testid="session-reset"]').click();
    const reset = page.locator('[data-testid="confirm-reset"]');
    await reset.waitFor();
    expect(await reset.textContent()).toContain(`its transcript (${messages} messages)`);
    expect(await reset.textContent()).toContain("its ACP agent's conversation");
    await page.locator('[data-testid="confirm-reset-yes"]').click();
    await expect.poll(() => app.gateway.transcripts.all(child).length).toBe(0);
    await page.locator('[data-testid="transcript-scroll"][data-count="0"]').waitFor();

    await page.locator('[data-testid="session-delete"]').click();
    const del = page.locator('[data-testid="confirm-delete"]');
    await del.waitFor();
    expect(await del.textContent()).toContain('the cursors on it (1): 1 watcher stop watching it');
    await screenshot(page, 'confirm-delete');
    await page.locator('[data-testid="confirm-delete-yes"]').click();
    await expect.poll(() => app.gateway.sessions.get(child)).toBeUndefined();
    await expect.poll(() => row(page, child).count()).toBe(0);
    expect(app.gateway.state.cursor(MAIN, child)).toBeUndefined();
    expect(browser.errors).toEqual([]);
  });
});
