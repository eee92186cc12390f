// Issue 26 in the browser, with real git and the real fixture ACP agent: two sessions started
// isolated in one repository from the New session dialog (the default for a real agent), each
// writing the same file and one of its own; the rows show branch, counts and the overlap, and so
// does the Inbox; the Changes tab shows the files and a side-by-side diff; a line comment goes to
// the agent as ONE human message and its parent gets one notice; one session is squash-merged
// (the base has exactly its change), the other is refused (the base moved), then discarded after
// the confirmation lists what is lost (worktree and branch gone). Saves the Changes tab screenshot.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { noticeText } from '../../shared/session-keys';
import { MAIN } from '../helpers/spec';
import { git, makeRepo } from '../worktrees/repo';
import { row, screenshot, sel, type App, type Browser, saveFixtureProfile } from './helpers';
import { useAppInBrowser } from '../helpers/app-in-browser';

let app: App;
let browser: Browser & { errors: string[] };
let page: Page;
let repo = '';
let head = '';
const keys = { a: '', b: '' };
/** What MAIN's turns read: an overlap notice is not a session-state notice, so the history drops it. */
const readByMain: string[] = [];

afterAll(async () => {
  if (repo) fs.rmSync(repo, { recursive: true, force: true });
});

useAppInBrowser((s) => ({ app, browser, page } = s), {
  seed: (app) => {
    repo = makeRepo();
    head = git(repo, 'rev-parse', 'HEAD');
    saveFixtureProfile(app, 'Fixture');
    app.gateway.events.on((e) => {
      if (e.type === 'notice:drained' && e.sessionKey === MAIN)
        readByMain.push(...e.entries.map((n) => n.text));
    });
  },
});

const idle = async (key: string) => {
  const until = Date.now() + 15_000;
  while (app.gateway.runtime.sessionStatus(key) !== 'idle') {
    if (Date.now() > until) throw new Error(`${key} did not finish its turn`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

async function startIsolated(label: string, message: string): Promise<string> {
  await page.locator('[data-testid="new-session"]').click();
  await page.locator('[data-testid="start-runner"]').selectOption('acp:fixture');
  await page.locator('[data-testid="start-cwd"]').fill(repo);
  // A real agent in a git repository: its own worktree is the default, from the checked-out branch.
  await expect.poll(() => page.locator('[data-testid="start-isolated"]').isChecked()).toBe(true);
  expect(await page.locator('[data-testid="start-base"]').inputValue()).toBe('main');
  await page.locator('[data-testid="start-label"]').fill(label);
  await page.locator('[data-testid="start-parent"]').selectOption(MAIN);
  await page.locator('[data-testid="start-message"]').fill(message);
  if (label === 'Fix login') await screenshot(page, 'new-session-worktree');
  await page.locator('[data-testid="start-submit"]').click();
  await page.locator('[data-testid="new-session-dialog"]').waitFor({ state: 'detached', timeout: 20_000 });
  return app.gateway.sessions.list().find((s) => s.label === label)!.key;
}

const changesTab = async (key: string) => {
  await row(page, key).click();
  await page.locator(sel.pane(key)).waitFor();
  await page.keyboard.press('4');
  await page.locator('[data-testid="changes"][data-ready="true"]').waitFor();
};

/** Notices for MAIN about `target`, read or still queued, whose text tells it to reconcile from `since`. */
const noticesFor = (target: string, since: number) => {
  const text = noticeText(target, since);
  const queued = app.gateway.notices.peek(MAIN).filter((e) => e.text === text);
  const read = app.gateway.noticeHistory
    .page({ limit: 1000 })
    .delivered.filter((d) => d.watcher === MAIN && d.text === text);
  return queued.length + read.length;
};

describe('worktrees in the browser', () => {
  it('two isolated agents in one repository: rows, overlap, Changes tab', async () => {
    keys.a = await startIsolated('Fix login', 'write shared.txt=from-a\\n a.txt=only-a\\n');
    keys.b = await startIsolated('Add signup', 'write shared.txt=from-b\\n b.txt=only-b\\n');
    await Promise.all([idle(keys.a), idle(keys.b)]);
    const a = app.gateway.worktrees.get(keys.a)!;
    expect(a.branch).toBe(`sightline/fix-login-${keys.a.split(':').pop()}`);
    expect(fs.readFileSync(path.join(repo, 'shared.txt'), 'utf8')).toBe('one\ntwo\nthree\n');

    // Each row: its branch and counts, marked as overlapping the other.
    const badge = (key: string) => row(page, key).locator('[data-testid="row-worktree"]');
    await expect.poll(() => badge(keys.a).getAttribute('data-overlap'), { timeout: 10_000 }).toBe('true');
    await expect.poll(() => badge(keys.b).getAttribute('data-overlap')).toBe('true');
    expect(await badge(keys.a).textContent()).toBe(`⚠ ⎇ ${a.branch.slice('sightline/'.length)} +2 −3`);
    await page.keyboard.press('i');
    expect(await page.locator('[data-testid="inbox-item"] [data-testid="overlap-files"]').textContent()).toBe(
      `Both change shared.txt in ${repo}`,
    );
    const told = (text: string) =>
      app.gateway.notices.peek(MAIN).some((e) => e.text === text) || readByMain.includes(text);
    const [k0, k1] = [keys.a, keys.b].sort();
    // Queued for the parent, or already read by one of its turns.
    const overlap = `Worktrees overlap: sessions "${k0}" and "${k1}" both change shared.txt in ${repo}.`;
    await expect.poll(() => told(overlap), { timeout: 10_000 }).toBe(true);

    await changesTab(keys.a);
    const files = page.locator('[data-testid="changes-file"]');
    expect(
      await files.evaluateAll((els) => els.map((e) => [e.dataset.path, e.dataset.status, e.textContent])),
    ).toEqual([
      ['a.txt', 'added', 'Aa.txtuncommitted+1−0'],
      ['shared.txt', 'modified', 'Mshared.txtuncommitted+1−3'],
    ]);
    expect(await page.locator('[data-testid="changes-counts"]').textContent()).toBe(
      '2 files +2 −3 · 0 commits · 2 uncommitted',
    );
    await files.nth(1).click();
    // Its patch is asked for now, for this file alone.
    const sbs = page.locator('[data-testid="side-by-side"][data-path="shared.txt"]');
    await sbs.locator('tr.sbs-row').first().waitFor();
    expect(await sbs.locator('tr.sbs-row').evaluateAll((rows) => rows.map((r) => r.textContent))).toEqual([
      '1one1from-a',
      '2two',
      '3three',
    ]);
  }, 60_000);

  it('a line comment reaches the agent as one human message and its parent as one notice', async () => {
    await idle(MAIN);
    // The parent reads what it was told so far (its own turns): the review's notice then stands alone.
    await expect.poll(() => app.gateway.notices.peek(MAIN).length, { timeout: 40_000 }).toBe(0);
    const seen = app.gateway.state.cursor(MAIN, keys.a)!.lastSeen;
    const before = app.gateway.transcripts.all(keys.a).length;
    const sbs = page.locator('[data-testid="side-by-side"][data-path="shared.txt"]');
    await sbs.locator('[data-testid="comment-line"][data-line="1"]').last().click();
    await page.locator('[data-testid="comment-text"]').fill('Keep the old first line.');
    await page.locator('[data-testid="comment-add"]').click();
    await page.locator('[data-testid="review-summary"]').fill('Nearly there.');
    expect(await page.locator('[data-testid="line-comment"]').textContent()).toBe(
      'Your comment: Keep the old first line.',
    );
    await screenshot(page, 'changes-tab');
    await page.locator('[data-testid="review-request_changes"]').click();
    await page.locator('[data-testid="review-comments"]').waitFor({ state: 'detached' });
    await idle(keys.a);
    const sent = app.gateway.transcripts
      .all(keys.a)
      .slice(before)
      .filter((m) => m.role === 'user');
    expect(sent.map((m) => [m.actorType, m.text])).toEqual([
      [
        'human',
        'Review of your changes: Request changes.\n\nNearly there.\n\nshared.txt:1\nKeep the old first line.',
      ],
    ]);
    await expect.poll(() => noticesFor(keys.a, seen), { timeout: 10_000 }).toBe(1);
  }, 90_000);

  it('squash-merges one (the base has exactly its change) and discards the other', async () => {
    await page.locator('[data-testid="worktree-merge"]').click();
    await page.locator('[data-testid="merge-message"]').fill('Fix login');
    await page.locator('[data-testid="merge-confirm"]').click();
    await page.locator('[data-testid="finish-note"]', { hasText: 'Merged into main as' }).waitFor();
    expect(git(repo, 'rev-parse', 'main^')).toBe(head);
    expect(git(repo, 'log', '-1', '--format=%B', 'main')).toBe('Fix login');
    expect(git(repo, 'diff', '--name-status', head, 'main')).toBe('A\ta.txt\nM\tshared.txt');
    expect(fs.readFileSync(path.join(repo, 'shared.txt'), 'utf8')).toBe('from-a\n');

    // B: main moved in a conflicting way; the refusal says so and offers a rebase.
    await changesTab(keys.b);
    await page.locator('[data-testid="worktree-merge"]').click();
    await page.locator('[data-testid="merge-confirm"]').click();
    expect(await page.locator('[data-testid="merge-refusal"] p').textContent()).toBe(
      'Cannot merge: main moved and now conflicts with this worktree in shared.txt. Rebase the worktree onto main and resolve, then merge again. Nothing was changed.',
    );
    await page.locator('[data-testid="merge-offer-rebase"]').waitFor();

    const b = app.gateway.worktrees.get(keys.b)!;
    await page.locator('[data-testid="worktree-discard"]').click();
    expect(await page.locator('[data-testid="discard-uncommitted"]').textContent()).toBe(
      '2 uncommitted files: b.txt, shared.txt',
    );
    expect(await page.locator('[data-testid="discard-commits"]').textContent()).toBe(
      `0 commits on ${b.branch} not merged`,
    );
    await page.locator('[data-testid="discard-confirm"]').click();
    await page.locator('[data-testid="changes-none"]').waitFor();
    expect(fs.existsSync(b.path)).toBe(false);
    expect(git(repo, 'branch', '--list', b.branch)).toBe('');
    await row(page, keys.b).locator('[data-testid="row-worktree"]').waitFor({ state: 'detached' });

    // Archiving A asks what happens to its worktree; keeping it leaves folder and branch alone.
    await row(page, keys.a).click();
    await page.locator('[data-testid="session-archive"]').click();
    await page.locator('[data-testid="worktree-exit-keep"]').click();
    await expect.poll(() => app.gateway.sessions.get(keys.a)?.archived).toBe(true);
    expect(fs.existsSync(app.gateway.worktrees.get(keys.a)!.path)).toBe(true);
    expect(browser.errors).toEqual([]);
  }, 60_000);
});
