// The visual check (issue 25.8): each main screen — the fleet with 60 sessions, a session, Inbox,
// Search, Catalog, Settings, New session, a consent question, the Changes tab of a session in its
// own worktree (issue 26) — in the light and the dark theme at
// 1440×900 and 1024×700, compared with the committed baselines in test/e2e/baselines/ (visual.ts
// says how); on every one, no page scrolls sideways and the document stays within its window.
// Only what changes by itself is masked: times and ages, the run's temporary folders, a worktree's
// branch (it ends in the session's random short id) and the Changes tab's Refresh button (it says
// "Refreshing…" while its five-second poll runs).
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { row, taskSessions, type App, type Browser, saveFixtureProfile } from './helpers';
import { useAppInBrowser } from '../helpers/app-in-browser';
import fs from 'node:fs';
import path from 'node:path';
import { BASELINES, compareWithBaseline, diffPixels, MAX_DIFF_RATIO, readPng } from './visual';
import { tempDir } from '../helpers/temp';

let app: App;
let browser: Browser & { errors: string[] };
let page: Page;

const FOLDERS = ['/srv/projects/web-shop', '/srv/projects/billing', '/srv/projects/infra'];
const SIZES = [
  { width: 1440, height: 900 },
  { width: 1024, height: 700 },
];
const THEMES = ['light', 'dark'] as const;

let repo = '';
afterAll(async () => {
  if (repo) fs.rmSync(repo, { recursive: true, force: true });
});

useAppInBrowser((s) => ({ app, browser, page } = s), {
  seed: (app) => taskSessions(app, FOLDERS),
});

/**
 * A repository whose one commit has the same id on every run (fixed author, committer and dates),
 * so the Changes tab's "from main @ <commit>" is drawn the same.
 */
function fixedRepository(files: Record<string, string>): string {
  const dir = fs.realpathSync(tempDir('sightline-visual-repo-'));
  const env = {
    ...process.env,
    LC_ALL: 'C',
    GIT_AUTHOR_NAME: 'Visual Check',
    GIT_AUTHOR_EMAIL: 'visual@example.com',
    GIT_COMMITTER_NAME: 'Visual Check',
    GIT_COMMITTER_EMAIL: 'visual@example.com',
    GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
    GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
  };
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { env, encoding: 'utf8' });
  git('init', '--quiet', '-b', 'main');
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  git('add', '-A');
  git('commit', '--quiet', '-m', 'first');
  return dir;
}

/** Every theme and size of the screen as it is now: the mismatches with the baselines. */
async function shoot(name: string): Promise<string[]> {
  const problems: string[] = [];
  for (const theme of THEMES) {
    await page.emulateMedia({ colorScheme: theme });
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await page.mouse.move(size.width - 1, size.height - 1);
      const fit = await page.evaluate(() => ({
        sideways: document.documentElement.scrollWidth - window.innerWidth,
        tall: document.documentElement.scrollHeight - window.innerHeight,
        panes: Array.from(document.querySelectorAll('.content, .sidebar, .page')).map(
          (el) => el.scrollWidth - el.clientWidth,
        ),
      }));
      const id = `${name}-${theme}-${size.width}`;
      if (fit.sideways > 0 || fit.panes.some((over) => over > 0)) problems.push(`${id}: scrolls sideways`);
      if (fit.tall > 0) problems.push(`${id}: the document is ${fit.tall}px taller than the window`);
      const shot = await page.screenshot({
        animations: 'disabled',
        caret: 'hide',
        mask: [
          page.locator('time, [data-testid="row-age"], [data-testid="session-started"]'),
          page.getByText(/sightline-e2e-|\/tmp\//),
          page.locator('[data-testid="row-worktree"], [data-testid="changes-refresh"]'),
          page.getByText(/sightline\//),
        ],
      });
      const diff = compareWithBaseline(id, shot);
      if (diff) problems.push(diff);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return problems;
}

async function go(nav: string, ready: string): Promise<void> {
  await page.locator(`[data-testid="nav-${nav}"]`).click();
  await page.locator(ready).waitFor();
}

describe('the main screens against their baselines', () => {
  it('the comparison notices one changed word', () => {
    const baseline = readPng(fs.readFileSync(path.join(BASELINES, 'fleet-light-1440.png')));
    const changed = { ...baseline, data: Buffer.from(baseline.data) };
    // A word's box (60×14 pixels) of the first row's label, drawn darker.
    for (let y = 160; y < 174; y++)
      for (let x = 30; x < 90; x++) changed.data.set([40, 40, 40, 255], (y * baseline.width + x) * 4);
    const { count } = diffPixels(changed, baseline);
    expect(count).toBeGreaterThan(MAX_DIFF_RATIO * baseline.width * baseline.height);
    expect(diffPixels(baseline, baseline).count).toBe(0);
  });

  it('the fleet with 60 sessions', async () => {
    await expect.poll(() => page.locator('.tree').getAttribute('data-count')).toBe('60');
    expect(await shoot('fleet')).toEqual([]);
  });

  it('a session', async () => {
    await row(page, 'agent:main:task-03').click();
    await page.locator('[data-testid="transcript"][data-ready="true"]').waitFor();
    expect(await shoot('session')).toEqual([]);
  });

  it('the Inbox', async () => {
    await go('inbox', '[data-testid="inbox"][data-ready="true"]');
    expect(await shoot('inbox')).toEqual([]);
  });

  it('Search', async () => {
    await go('search', '[data-testid="search"]');
    await page.locator('[data-testid="search-input"]').fill('Task 1');
    await page
      .locator('[data-testid="search"][data-ready="true"] [data-testid="search-match"]')
      .first()
      .waitFor();
    expect(await shoot('search')).toEqual([]);
  });

  it('the Catalog', async () => {
    // Its first scan finished: "Scanning…" would otherwise be drawn under load.
    await go('catalog', '[data-testid="catalog"][data-ready="true"]');
    expect(await shoot('catalog')).toEqual([]);
  });

  it('Settings', async () => {
    await go('settings', '[data-testid="settings"][data-ready="true"]');
    expect(await shoot('settings')).toEqual([]);
  });

  it('New session', async () => {
    await go('session', '[data-testid="fleet-sidebar"]');
    await page.keyboard.press('Shift+N');
    await page.locator('[data-testid="new-session-dialog"]').waitFor();
    expect(await shoot('new-session')).toEqual([]);
    await page.locator('[data-testid="new-session-dialog"] button', { hasText: 'Cancel' }).click();
    await page.locator('[data-testid="new-session-dialog"]').waitFor({ state: 'detached' });
  });

  it('a consent question', async () => {
    const asked = app.gateway.consent
      .confirm({
        kind: 'terminal',
        title: 'Run git status in the web-shop folder',
        command: { program: '/usr/bin/git', args: ['status', '--short'], cwd: '/srv/projects/web-shop' },
      })
      .then(
        () => 'allowed',
        (err: Error) => err.message,
      );
    await page.locator('[data-testid="consent-prompt"]').waitFor();
    expect(await shoot('consent')).toEqual([]);
    await page.locator('[data-testid="consent-decline"]').click();
    expect(await asked).toBe('declined by the person');
    expect(browser.errors).toEqual([]);
  });

  it('the Changes tab of a session in its own worktree', async () => {
    repo = fixedRepository({
      'config.ini': '[login]\nretries=3\ntimeout=30\n\n[audit]\nenabled=true\n',
      'README.md': '# web-shop\n',
    });
    saveFixtureProfile(app, 'Fixture');
    // The fixture agent edits one file and adds another, leaving both uncommitted.
    const s = await app.gateway.sessions.start({
      acpProfileId: 'fixture',
      cwd: repo,
      label: 'Fix login',
      isolation: 'worktree',
      message:
        'write config.ini=[login]\\nretries=5\\ntimeout=30\\nlockout=15m\\n\\n[audit]\\nenabled=true\\n docs/notes.md=Retries:5\\nLockout:15m\\n',
    });
    await expect.poll(() => app.gateway.runtime.sessionStatus(s.key), { timeout: 15_000 }).toBe('idle');
    await go('session', '[data-testid="fleet-sidebar"]');
    // The fleet filtered to it: its row is drawn where it is on every run.
    await page.locator('[data-testid="fleet-filter"]').fill('Fix login');
    await row(page, s.key).click();
    await page.keyboard.press('4');
    await page.locator('[data-testid="changes"][data-ready="true"]').waitFor();
    await expect
      .poll(() => page.locator('[data-testid="changes-counts"]').textContent())
      .toBe('2 files +4 −1 · 0 commits · 2 uncommitted');
    await page.locator('[data-testid="side-by-side"][data-path="config.ini"] tr.sbs-row').first().waitFor();
    expect(await shoot('changes')).toEqual([]);
    await page.locator('[data-testid="fleet-filter"]').fill('');
    expect(browser.errors).toEqual([]);
  });
});
