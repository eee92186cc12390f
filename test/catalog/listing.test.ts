// The Claude Code listing of the catalog (issue 31): what an entry shows comes from the head and
// tail windows of the transcript (the first prompt, the titles, the last time), read without
// parsing every row; the catalog index keeps each file's entry while its size, time and inode
// hold, so a listing reads again only the files that changed.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeAssistant, claudeUser, CLAUDE_ID, writeClaude } from './fixtures';
import { line, makeHarness, type Harness } from './helpers';

let h: Harness | undefined;
afterEach(() => {
  h?.cleanup();
  h = undefined;
});

const PROMPT = 'The /invoices endpoint returns 500. Find out why.';
/** A reply of about 10 KB: five of them fill more than a 64 KiB window. */
const filler = (n: number, at: string) =>
  Array.from({ length: n }, () =>
    line({
      type: 'assistant',
      isSidechain: false,
      timestamp: at,
      message: { role: 'assistant', content: [{ type: 'text', text: 'x'.repeat(10_000) }] },
    }),
  ).join('');

function only(harness: Harness) {
  const list = harness.catalog.list().filter((e) => e.provider === 'claude');
  expect(list).toHaveLength(1);
  return list[0]!;
}

describe('Claude Code listing', () => {
  it('shows the first prompt, the folder, the first and the last time', () => {
    h = makeHarness();
    writeClaude(
      h.roots.claude,
      claudeUser('Thanks, now the tests.', { timestamp: '2026-03-02T10:00:00.000Z' }),
    );
    expect(only(h)).toMatchObject({
      threadId: CLAUDE_ID,
      title: PROMPT,
      cwd: '/home/ana/src/ledger-api',
      createdAt: Date.parse('2026-03-02T09:14:05.098Z'),
      lastActivityAt: Date.parse('2026-03-02T10:00:00.000Z'),
    });
  });

  it('prefers the name the person gave, then Claude’s title, then a summary, the newest of each', () => {
    h = makeHarness();
    const file = writeClaude(
      h.roots.claude,
      line({ type: 'summary', summary: 'Old summary', leafUuid: 'x' }) +
        line({ type: 'ai-title', aiTitle: 'Invoices 500', sessionId: CLAUDE_ID }),
    );
    expect(only(h).title).toBe('Invoices 500');
    fs.appendFileSync(file, line({ type: 'custom-title', customTitle: 'Billing bug', sessionId: CLAUDE_ID }));
    expect(only(h).title).toBe('Billing bug');
    fs.appendFileSync(
      file,
      line({ type: 'custom-title', customTitle: 'Billing bug, day 2', sessionId: CLAUDE_ID }),
    );
    expect(only(h).title).toBe('Billing bug, day 2');
  });

  it('reads a title at the end of a long transcript and a prompt after 64 KiB of other rows', () => {
    h = makeHarness();
    const file = path.join(h.roots.claude, '-home-ana', `${CLAUDE_ID}.jsonl`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const meta = claudeUser('<local-command-caveat>Caveat</local-command-caveat>', { isMeta: true });
    fs.writeFileSync(
      file,
      meta +
        filler(8, '2026-03-02T09:20:00.000Z') +
        claudeUser(PROMPT) +
        filler(8, '2026-03-02T09:30:00.000Z') +
        claudeAssistant('Found it.').replace('2026-03-02T09:14:05.098Z', '2026-03-02T11:00:00.000Z'),
    );
    expect(only(h)).toMatchObject({ title: PROMPT, lastActivityAt: Date.parse('2026-03-02T11:00:00.000Z') });
    fs.appendFileSync(file, line({ type: 'ai-title', aiTitle: 'Invoices 500', sessionId: CLAUDE_ID }));
    expect(only(h).title).toBe('Invoices 500');
  });

  it('lists no file without a prompt of the main thread, and no sub-agent file', () => {
    h = makeHarness();
    const dir = path.join(h.roots.claude, '-home-ana');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${CLAUDE_ID}.jsonl`), claudeUser('side work', { isSidechain: true }));
    fs.writeFileSync(path.join(dir, 'agent-1234.jsonl'), claudeUser(PROMPT));
    expect(h.catalog.list().filter((e) => e.provider === 'claude')).toEqual([]);
  });

  it('a title never holds more than 200 characters of a long prompt, on one line', () => {
    h = makeHarness();
    writeClaude(h.roots.claude);
    const file = path.join(h.roots.claude, '-home-ana-src-ledger-api', `${CLAUDE_ID}.jsonl`);
    fs.writeFileSync(file, claudeUser(`   Fix\n\n  this:   ${'word '.repeat(100_000)}`));
    const title = only(h).title;
    expect(title).toHaveLength(200);
    expect(title.startsWith('Fix this: word word')).toBe(true);
    expect(title.endsWith('…')).toBe(true);
  });
});

describe('catalog index', () => {
  it('keeps an entry while its file is unchanged and reads the file again once it changes', async () => {
    h = makeHarness();
    const file = writeClaude(h.roots.claude);
    expect(only(h).title).toBe(PROMPT);
    await h.catalog.indexed();
    const rows = () =>
      h!.db.prepare('SELECT unit, found FROM catalog_index').all() as { unit: string; found: string }[];
    expect(rows().map((r) => r.unit)).toEqual([file]);

    // The index answers while size, time and inode hold: a changed row in the index shows.
    const doctored = rows()[0]!.found.replace(PROMPT, 'From the index');
    h.db.prepare('UPDATE catalog_index SET found = ?').run(doctored);
    expect(only(h).title).toBe('From the index');

    // An append changes the size: the file is read again and the index follows.
    fs.appendFileSync(file, line({ type: 'ai-title', aiTitle: 'Invoices 500', sessionId: CLAUDE_ID }));
    expect(only(h).title).toBe('Invoices 500');
    await h.catalog.indexed();
    expect(JSON.parse(rows()[0]!.found)[0].entry.title).toBe('Invoices 500');

    // A file that is gone leaves the listing and, after it, the index.
    fs.rmSync(file);
    expect(h.catalog.list().filter((e) => e.provider === 'claude')).toEqual([]);
    await h.catalog.indexed();
    expect(rows()).toEqual([]);
  });
});

describe('catalog roots watched', () => {
  const changes = () => {
    let n = 0;
    return { count: () => n, bump: () => void n++ };
  };
  const until = async (ok: () => boolean) => {
    for (let i = 0; i < 100 && !ok(); i++) await new Promise((r) => setTimeout(r, 50));
    expect(ok()).toBe(true);
  };

  it('a transcript in a new project folder raises one change; an append raises none', async () => {
    const c = changes();
    h = makeHarness({ onChanged: c.bump });
    fs.mkdirSync(h.roots.claude, { recursive: true });
    h.catalog.start();
    expect(h.catalog.list().filter((e) => e.provider === 'claude')).toEqual([]);

    // Claude Code makes the project's folder, then the transcript in it.
    const file = writeClaude(h.roots.claude);
    await until(() => c.count() >= 1);
    expect(
      h.catalog
        .list()
        .filter((e) => e.provider === 'claude')
        .map((e) => e.threadId),
    ).toEqual([CLAUDE_ID]);
    await until(() => h!.catalog.watchedFolders() >= 2);
    await new Promise((r) => setTimeout(r, 700));
    const after = c.count();

    fs.appendFileSync(file, claudeAssistant('More.'));
    await new Promise((r) => setTimeout(r, 700));
    expect(c.count()).toBe(after);

    // A second session in the same folder, then the folder's removal: each a change.
    fs.writeFileSync(
      path.join(path.dirname(file), '0b9c2e4a-1111-4222-8333-944455556666.jsonl'),
      claudeUser('Hi'),
    );
    await until(() => c.count() === after + 1);
    fs.rmSync(path.dirname(file), { recursive: true });
    await until(() => c.count() === after + 2);
    expect(h.catalog.list().filter((e) => e.provider === 'claude')).toEqual([]);
    h.catalog.stop();
    expect(h.catalog.watchedFolders()).toBe(0);
  });
});
