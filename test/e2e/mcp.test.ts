// Sessions tools over MCP in the browser: an ACP parent (the fixture agent, a real MCP client)
// spawns a native child, a person steps into the child from the composer, and the parent's next
// turn shows the notice (a system note) and its reconcile (the session_status call through MCP
// and its result) in the transcript. Settings → MCP mints a credential for an outside agent: the
// secret and the commands shown once, its use (client name) listed, revoking ends it.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { claudeCommand, codexCommands } from '../../shared/mcp-commands';
import { httpClient } from '../mcp/helpers';
import { waitFor } from '../helpers/poll';
import { row, saveFixtureProfile, screenshot, type App, type Browser } from './helpers';
import { useAppInBrowser } from '../helpers/app-in-browser';
import { MAIN, noticeText } from '../helpers/spec';

let app: App;
let browser: Browser & { errors: string[] };
let page: Page;

useAppInBrowser((s) => ({ app, browser, page } = s), {
  seed: (app) => {
    app.gateway.agents.save({ id: 'main', providerSettings: { stepMs: '1', steps: '1' } });
    // issue 14.3: agents start only profiles allowed for agents
    saveFixtureProfile(app, 'Fixture agent', { allowAgents: true });
  },
});

const settled = (key: string, count: number) => () => {
  const runs = app.gateway.runtime.runs(key);
  return runs.length >= count && runs.every((r) => ['idle', 'failed', 'cancelled'].includes(r.status));
};

async function say(key: string, text: string) {
  await row(page, key).click();
  await page.locator(`[data-testid="session-pane"][data-session-key="${key}"]`).waitFor();
  await page.locator('[data-testid="tab-transcript"]').click();
  await page.locator('[data-testid="composer-input"]').fill(text);
  await page.locator('[data-testid="composer-input"]').press('Enter');
}

describe('an ACP parent watches through MCP', () => {
  it('shows the notice and the reconcile in the parent`s transcript', async () => {
    const gw = app.gateway;
    const spawned = await gw.tools.call(MAIN, 'sessions_spawn', {
      task: 'mcp sessions_spawn {"task":"collect the numbers","runtime":"native"}',
      runtime: 'acp',
      profile: 'fixture',
      label: 'ACP coordinator (fixture agent)',
    });
    if (!spawned.ok) throw new Error(spawned.error);
    const parent = (spawned.details as { childSessionKey: string }).childSessionKey;
    await waitFor(settled(parent, 2), 20_000, 'the ACP parent`s spawn and announcement turns');
    const child = gw.sessions.list().find((s) => s.parentKey === parent)!.key;
    const seeded = gw.state.changesSince(child, 0).events[0]!.sequence;
    await gw.runtime.idle();

    await say(child, 'Use the second data set instead.');
    const notice = noticeText(child, seeded);
    await waitFor(() => gw.notices.peek(parent).some((e) => e.text === notice), 10_000, 'the notice');

    await say(parent, 'mcp-reconcile');
    const pane = page.locator(`[data-testid="session-pane"][data-session-key="${parent}"]`);
    const note = pane.locator('[data-testid="transcript-message"][data-role="system"]', { hasText: notice });
    await note.waitFor({ timeout: 20_000 });
    const call = pane.locator('[data-testid="tool-call"]', { hasText: 'session_status' });
    await call.waitFor({ timeout: 20_000 });
    expect(await call.textContent()).toContain(String(seeded));
    const result = pane.locator('[data-testid="transcript-message"][data-role="tool"]', {
      hasText: 'human_direct_message',
    });
    await result.last().waitFor({ timeout: 20_000 });
    await note.scrollIntoViewIfNeeded();
    expect(browser.errors).toEqual([]);
    await screenshot(page, 'acp-mcp-reconcile');
  });
});

describe('Settings → MCP', () => {
  it('mints a credential for an outside agent, shows it once, lists its use and revokes it', async () => {
    await page.locator('[data-testid="nav-settings"]').click();
    const section = page.locator('[data-testid="mcp-credentials"][data-ready="true"]');
    await section.waitFor();
    // The ACP parent's own credential is listed, automatic.
    expect(await section.locator('[data-testid="mcp-credential"][data-kind="acp"]').count()).toBeGreaterThan(
      0,
    );

    await section.locator('[data-testid="mcp-target"]').selectOption({ label: 'A new session named…' });
    await section.locator('[data-testid="mcp-new-name"]').fill('Claude Code in ~/src');
    await section.locator('[data-testid="mcp-label"]').fill('laptop');
    await section.locator('[data-testid="mcp-issue"]').click();
    const issued = section.locator('[data-testid="mcp-issued"]');
    await issued.waitFor();
    const secret = (await issued.locator('[data-testid="mcp-secret"]').textContent())!;
    expect(secret).toMatch(/^slmcp_/);
    const { url } = await app.gateway.mcp.endpoint();
    expect(await issued.locator('[data-testid="mcp-claude-command"]').textContent()).toBe(
      claudeCommand(url, secret),
    );
    expect(await issued.locator('[data-testid="mcp-codex-command"]').textContent()).toBe(
      codexCommands(url, secret).join('\n'),
    );
    const external = app.gateway.mcp.list().find((c) => c.kind === 'external')!;
    expect(external.sessionKey).toMatch(/^agent:main:external:claude-code-in-src-[0-9a-f]{6}$/);
    await issued.scrollIntoViewIfNeeded();
    await screenshot(page, 'settings-mcp');
    await issued.locator('[data-testid="mcp-issued-done"]').click();
    await expect.poll(() => issued.count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

    // The outside agent connects (as Claude Code would) and is listed with its client name.
    const client = await httpClient(url, secret, 'claude-code');
    await client.call('sessions_list');
    await section.locator('[data-testid="mcp-refresh"]').click();
    const card = section.locator(`[data-testid="mcp-credential"][data-session-key="${external.sessionKey}"]`);
    await expect
      .poll(() => card.locator('[data-testid="mcp-last-used"]').textContent())
      .toMatch(/by claude-code$/);

    await card.locator('[data-testid="mcp-revoke"]').click();
    await card.locator('[data-testid="mcp-revoke-confirm"]').click();
    await expect.poll(() => card.count()).toBe(0);
    await expect(client.call('sessions_list')).rejects.toMatchObject({ code: 401 });
    await client.close();
    expect(browser.errors).toEqual([]);
  });
});
