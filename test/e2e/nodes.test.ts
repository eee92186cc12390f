// Paired nodes in the browser UI (issue 19.3): a person adds a machine in Settings → Nodes by its
// SSH destination (a real OpenSSH server on 127.0.0.1, test/nodes/sshd.ts; the node file is copied
// there over the same SSH), sees it online with its sessions, and the catalog lists that machine's
// session beside this one's, with the host named and a filter by host; adopting it opens it.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { adoptedKeyFor } from '../../shared/session-keys';
import { CLAUDE_ID, writeClaude, writeCodex } from '../catalog/fixtures';
import { nodeBundle } from '../nodes/helpers';
import { startSshd, type Sshd } from '../nodes/sshd';
import { ensureRenderer, screenshot, tmpDir, type App, type Browser } from './helpers';
import { useAppInBrowser } from '../helpers/app-in-browser';

let app: App;
let browser: Browser & { errors: string[] };
let page: Page;
let sshd: Sshd;
let bundle = '';
let sshDir: string;

beforeAll(async () => {
  sshDir = tmpDir('sightline-e2e-ssh-');
  // The renderer builds beside the node bundle (useAppInBrowser finds it built).
  [bundle] = await Promise.all([nodeBundle(), ensureRenderer()]);
  sshd = await startSshd(sshDir);
  // The remote machine's own Claude Code session (its real home: ~/.claude/projects).
  writeClaude(path.join(sshd.home, '.claude', 'projects'));
}, 120_000);

afterAll(async () => {
  sshd?.stop();
  if (sshDir) fs.rmSync(sshDir, { recursive: true, force: true });
});

useAppInBrowser((s) => ({ app, browser, page } = s), {
  start: () => ({
    gateway: { nodes: { sshCommand: ['ssh', '-F', sshd.config()], bundle, helloTimeoutMs: 20_000 } },
  }),
  seed: (app) => {
    // And one on this machine.
    writeCodex(path.join(app.catalogRoot, 'codex'));
  },
});

const byTestId = (id: string) => page.locator(`[data-testid="${id}"]`);

describe('Settings → Nodes', () => {
  it('adds a machine by its SSH destination and shows it online with its sessions', async () => {
    await byTestId('nav-settings').click();
    await page.locator('[data-testid="nodes"][data-ready="true"]').waitFor();
    await byTestId('node-ssh').fill('sightline-test');
    await byTestId('node-name').fill('devbox');
    await byTestId('node-add').click();
    const node = page.locator('[data-testid="node"][data-state="online"]');
    await node.waitFor({ timeout: 30_000 });
    expect(await node.locator('[data-testid="node-rename"]').inputValue()).toBe('devbox');
    expect(await node.locator('[data-testid="node-facts"]').textContent()).toContain('1 session seen');
    expect(app.gateway.catalog.nodes.list()).toEqual([
      expect.objectContaining({ name: 'devbox', ssh: 'sightline-test', state: 'online', sessions: 1 }),
    ]);
    await node.scrollIntoViewIfNeeded();
    await screenshot(page, 'settings-nodes');
  });

  it('a destination that is not one is refused in words, nothing added', async () => {
    await byTestId('node-ssh').fill('-oProxyCommand=touch /tmp/x');
    await byTestId('node-add').click();
    await expect.poll(() => byTestId('node-error').textContent()).toContain('ssh must be an SSH destination');
    expect(app.gateway.catalog.nodes.list()).toHaveLength(1);
  });
});

describe('the catalog with two hosts', () => {
  it('lists the remote session with its host, filters by host, and adopts it', async () => {
    await byTestId('nav-catalog').click();
    await page.locator('[data-testid="catalog"][data-ready="true"]').waitFor();
    const remote = page.locator('[data-testid="catalog-entry"][data-remote="true"]');
    await remote.waitFor();
    expect(await remote.getAttribute('data-thread-id')).toBe(CLAUDE_ID);
    expect(await remote.locator('[data-testid="catalog-host"]').textContent()).toBe('devbox');
    await expect.poll(() => byTestId('catalog-entry').count()).toBe(2);
    await screenshot(page, 'catalog-two-hosts');

    const nodeId = app.gateway.catalog.nodes.list()[0]!.id;
    await byTestId('catalog-host-filter').selectOption(nodeId);
    await expect.poll(() => byTestId('catalog-entry').count()).toBe(1);
    await byTestId('catalog-host-filter').selectOption('');
    await expect.poll(() => byTestId('catalog-entry').count()).toBe(2);

    await remote.locator('[data-testid="catalog-adopt"]').click();
    await expect
      .poll(() => app.gateway.sessions.list().map((s) => s.key))
      .toContain(adoptedKeyFor('claude', CLAUDE_ID, nodeId));
    expect(browser.errors).toEqual([]);
  });
});
