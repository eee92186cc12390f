// Page-level helpers of the browser suites: screenshots, the fleet's rows, a session's pane and
// transcript. The app and browser opening is test/helpers/browser-app.ts (re-exported here).
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ROOT, type App } from '../helpers/browser-app';

export {
  CHROMIUM_ARGS,
  ensureRenderer,
  openBrowser,
  RENDERER_DIR,
  ROOT,
  startApp,
  type App,
  type Browser,
} from '../helpers/browser-app';
export { tempDir as tmpDir } from '../helpers/temp';

// Screenshots are always taken (the code path stays exercised) but land in the README's folder only
// when asked for (`npm run screenshots`), so a plain `npm test` leaves the tree clean.
export const SCREENSHOTS = process.env.SIGHTLINE_SCREENSHOTS
  ? path.join(ROOT, 'docs/screenshots')
  : path.join(ROOT, 'test-results/screenshots');
export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
}

export function row(page: Page, sessionKey: string) {
  return page.locator(`[data-testid="session-row"][data-session-key="${sessionKey}"]`);
}

export const sel = {
  pane: (key: string) => `[data-testid="session-pane"][data-session-key="${key}"]`,
  msg: (actor: string) => `[data-testid="transcript-message"][data-actor="${actor}"]`,
};

/** Opens a session from the fleet tree on its transcript tab. */
export async function openSession(page: Page, key: string): Promise<void> {
  await row(page, key).click();
  await page.locator(sel.pane(key)).waitFor();
  await page.locator('[data-testid="tab-transcript"]').click();
  await page.locator('[data-testid="transcript"][data-ready="true"]').waitFor();
}

/**
 * 59 sessions of agent `main` besides its main session (60 in all), spread over three project
 * folders, every tenth group with children: the fleet the supervisor-view and visual suites draw.
 */
export function taskSessions(app: App, folders: string[]): void {
  for (let i = 0; i < 59; i++) {
    const parentKey = i % 10 > 6 ? `agent:main:task-${String(i - (i % 10)).padStart(2, '0')}` : undefined;
    app.gateway.sessions.create({
      key: `agent:main:task-${String(i).padStart(2, '0')}`,
      label: `Task ${String(i).padStart(2, '0')}`,
      cwd: folders[i % 3],
      ...(parentKey ? { parentKey } : {}),
    });
  }
}

/** The fixture ACP agent (test/fixtures/acp-agent) saved as profile `fixture`, a trusted save. */
export function saveFixtureProfile(app: App, name: string, extra: { allowAgents?: boolean } = {}): void {
  app.gateway.acp.profiles.save({
    id: 'fixture',
    name,
    command: process.execPath,
    args: [path.join(ROOT, 'test/fixtures/acp-agent/agent.mjs')],
    env: {},
    ...extra,
  });
}
