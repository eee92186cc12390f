// New session → Claude Code in the browser, as a person does it: the real Claude Code ACP adapter
// (@zed-industries/claude-agent-acp, pinned in test/tools/install.ts) against the Anthropic
// stand-in. The model calls Sightline's session_status, the person allows it from the banner, the
// tool result and the final answer land in the transcript. Saves the screenshots of the permission
// request and the tool result (docs/screenshots).
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startAnthropicStandIn, type StandIn } from '../helpers/standin';
import { ACP_AGENTS, ensureTool } from '../tools/install';
import { claudeCodeEnv } from '../agents/claude-code';
import { screenshot, sel, tmpDir, type App, type Browser } from './helpers';
import { useAppInBrowser } from '../helpers/app-in-browser';
import { MAIN } from '../helpers/spec';

const spec = ACP_AGENTS.find((a) => a.id === 'claude-agent-acp')!;
let app: App;
let model: StandIn;
let browser: Browser & { errors: string[] };
let page: Page;
let folder: string;
let home: string;
let bin = '';

beforeAll(async () => {
  bin = fs.realpathSync(await ensureTool(spec, spec.pinned));
  model = await startAnthropicStandIn({
    script: [
      { call: 'session_status', input: { sessionKey: MAIN } },
      (turn) => ({
        text: `The coordinator is there: ${/agent:main:main/.test(turn.toolResults.at(-1) ?? '') ? 'yes' : 'no'}.`,
      }),
    ],
  });
}, 600_000);

afterAll(async () => {
  await model?.close();
  for (const dir of [folder, home]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

useAppInBrowser((s) => ({ app, browser, page } = s), {
  seed: (app) => {
    folder = fs.realpathSync(tmpDir('sightline-e2e-claude-project-'));
    home = fs.realpathSync(tmpDir('sightline-e2e-claude-home-'));
    // The profile a person would add from the registry with its key and base URL (trusted save here:
    // the registry's Add path is covered by start-session.test.ts and test/acp/start-check.test.ts).
    app.gateway.acp.profiles.save({
      id: 'claude',
      name: 'Claude Code',
      command: process.execPath,
      args: [bin],
      env: claudeCodeEnv(home, model.url),
    });
  },
  timeoutMs: 600_000,
});

describe('New session → Claude Code (real adapter, stand-in model)', () => {
  it('completes a turn: the permission request, the tool result, the answer', async () => {
    await page.locator('[data-testid="new-session"]').click();
    await page.locator('[data-testid="new-session-dialog"]').waitFor();
    await page.locator('[data-testid="start-runner"]').selectOption('acp:claude');
    await page.locator('[data-testid="start-cwd"]').fill(folder);
    await page.locator('[data-testid="start-cwd-check"]', { hasText: `✓ ${folder}` }).waitFor();
    await page.locator('[data-testid="start-label"]').fill('Check the coordinator');
    await page.locator('[data-testid="start-parent"]').selectOption(MAIN);
    await page.locator('[data-testid="start-message"]').fill('Check on your coordinator.');
    await page.locator('[data-testid="start-submit"]').click();
    await page.locator('[data-testid="new-session-dialog"]').waitFor({ state: 'detached', timeout: 60_000 });
    const key = app.gateway.sessions.list().find((s) => s.label === 'Check the coordinator')!.key;
    await page.locator(sel.pane(key)).waitFor();

    const banner = page.locator('[data-testid="permission-banner"]');
    await banner.waitFor({ timeout: 90_000 });
    expect(await banner.locator('[data-testid="permission-title"]').textContent()).toContain(
      'session_status',
    );
    await screenshot(page, 'claude-code-permission');
    await banner.locator('[data-testid="permission-option"][data-kind="allow_once"]').click();

    await page
      .locator('[data-testid="transcript-message"]', { hasText: 'The coordinator is there: yes.' })
      .waitFor({ timeout: 90_000 });
    const tool = page.locator('[data-testid="transcript-message"][data-role="tool"]');
    expect(await tool.count()).toBeGreaterThan(0);
    expect(await tool.last().textContent()).toContain('mcp__sightline__session_status — completed');
    await screenshot(page, 'claude-code-tool-result');

    expect(app.gateway.runs.list(key).map((r) => r.error ?? r.status)).toEqual(['idle']);
    // What Claude Code reported of the turn (two model calls of 12 in / 8 out each at the
    // stand-in, priced by Claude Code itself) in the header and the fleet row (issue 28.6).
    const [run] = app.gateway.runs.list(key);
    expect([run!.inputTokens, run!.outputTokens, run!.cost?.currency]).toEqual([24, 16, 'USD']);
    const usage = page.locator(`${sel.pane(key)} [data-testid="token-usage"]`);
    await usage.waitFor();
    const shown = /^24 in · 16 out · \$(0\.\d+)$/.exec((await usage.textContent()) ?? '');
    expect(Number(shown?.[1])).toBeCloseTo(run!.cost!.amount, 9);
    expect(await page.locator(`${sel.pane(key)} [data-testid="context-usage"]`).textContent()).toMatch(
      /^context \d+ of 200\.0k$/,
    );
    const row = page.locator(
      `[data-testid="session-row"][data-session-key="${key}"] [data-testid="row-usage"]`,
    );
    expect(await row.textContent()).toBe(`$${shown?.[1]}`);
    await screenshot(page, 'claude-code-usage');
    expect(model.turns[0]!.tools.some((n) => n.endsWith('session_status'))).toBe(true);
    // What the tool answered reached the model (its answer says yes only when it saw the coordinator).
    expect(model.turns[1]!.toolResults.at(-1)).toContain(MAIN);
    expect(browser.errors).toEqual([]);
  }, 240_000);
});
