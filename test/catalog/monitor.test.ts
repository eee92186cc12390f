// Monitor mechanics on hand-made Claude/Pi transcripts: windows, partial and oversized lines,
// rewrites, I/O errors, deletion streaks, dedupe on retried checks, self-echo, adoption.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeFs, type CatalogFs } from '../../electron/gateway/catalog/kit/fsio';
import { humanTurns, linkRow, makeHarness, type Harness } from './helpers';
import { CLAUDE_ID, PI_ID, claudeAssistant, claudeUser, piMessage, writeClaude, writePi } from './fixtures';

const KEY = `agent:main:adopted:claude:${CLAUDE_ID}`;
const MiB = 1024 * 1024;
let h: Harness;
afterEach(() => h.cleanup());

function setup(fsOverride?: CatalogFs): string {
  h = makeHarness(fsOverride ? { fs: fsOverride } : {});
  const file = writeClaude(h.roots.claude);
  h.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID });
  return file;
}

const turns = () => humanTurns(h.events, KEY);

function isReadable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.R_OK);
    return true;
  } catch {
    return false;
  }
}
const missing = () => h.events.filter((e) => e.kind === 'upstream_missing');

describe('adoption', () => {
  it('creates the session, imports the transcript, records adopted, links at the end and registers the main session as watcher', () => {
    const file = setup();
    const adopted = h.events.filter((e) => e.kind === 'adopted');
    expect(adopted).toEqual([
      expect.objectContaining({
        sessionKey: KEY,
        actorType: 'human',
        summary: 'adopted from claude',
        payload: { catalogId: 'claude', hostId: 'test-host' },
      }),
    ]);
    expect(h.imported.get(KEY)).toEqual([
      { role: 'user', text: 'The /invoices endpoint returns 500. Find out why.' },
      { role: 'assistant', text: 'Looking.' },
    ]);
    expect(linkRow(h.db, KEY)).toMatchObject({
      provider: 'claude',
      thread_id: CLAUDE_ID,
      marker_offset: fs.statSync(file).size,
      missing_streak: 0,
      generation: 1,
    });
    const w = h.db.prepare('SELECT watcher_key FROM session_watch_cursors WHERE target_key = ?').all(KEY);
    expect(w).toEqual([{ watcher_key: 'agent:main:main' }]);
    expect(h.catalog.list().find((e) => e.threadId === CLAUDE_ID)).toMatchObject({
      adopted: true,
      title: 'The /invoices endpoint returns 500. Find out why.',
      cwd: '/home/ana/src/ledger-api',
    });
  });

  it('rejects unknown threads, unknown providers and sub-agent files with clear errors', () => {
    h = makeHarness();
    writeClaude(h.roots.claude);
    expect(() =>
      h.catalog.adopt({ provider: 'claude', threadId: '0000dead-0000-4000-8000-000000000000' }),
    ).toThrow(/^Unknown thread: claude session 0000dead-0000-4000-8000-000000000000/);
    expect(() => h.catalog.adopt({ provider: 'zed' as never, threadId: 'x' })).toThrow(
      'Unknown catalog provider: zed',
    );
    // Ids of another shape are refused before anything is looked up (issue 14.5).
    expect(() => h.catalog.adopt({ provider: 'claude', threadId: 'nope' })).toThrow(
      'Not a Claude Code session id: "nope"',
    );
    expect(() => h.catalog.adopt({ provider: 'claude', threadId: 'agent-1234' })).toThrow(
      'Not a Claude Code session id: "agent-1234"',
    );
  });

  it('re-adopting re-baselines the link: fresh marker, fresh missing streak, old activity not reported', async () => {
    const file = setup();
    fs.renameSync(file, `${file}.gone`);
    await h.catalog.tick();
    await h.catalog.tick();
    expect(linkRow(h.db, KEY)!.missing_streak).toBe(2);
    fs.renameSync(`${file}.gone`, file);
    fs.appendFileSync(file, claudeUser('typed while unwatched'));
    h.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID });
    expect(linkRow(h.db, KEY)).toMatchObject({
      missing_streak: 0,
      generation: 2,
      marker_offset: fs.statSync(file).size,
    });
    await h.catalog.tick();
    expect(turns().events).toBe(0);
    fs.appendFileSync(file, claudeUser('new'));
    await h.catalog.tick();
    expect(turns()).toEqual({ events: 1, turns: 1 });
  });
});

describe('reading what was added', () => {
  it('classifies complete lines only; a partial last line waits for its newline', async () => {
    const file = setup();
    const row = claudeUser('half written prompt');
    fs.appendFileSync(file, row.slice(0, 40));
    await h.catalog.tick();
    expect(turns().events).toBe(0);
    const at = linkRow(h.db, KEY)!.marker_offset as number;
    fs.appendFileSync(file, row.slice(40, -1));
    await h.catalog.tick();
    expect(turns().events).toBe(0);
    expect(linkRow(h.db, KEY)!.marker_offset).toBe(at);
    fs.appendFileSync(file, '\n');
    await h.catalog.tick();
    expect(turns()).toEqual({ events: 1, turns: 1 });
    expect(linkRow(h.db, KEY)!.marker_offset).toBe(fs.statSync(file).size);
  });

  it('reads at most 1 MiB per check and never skips bytes', async () => {
    const file = setup();
    const filler = claudeAssistant('x'.repeat(2000));
    let body = '';
    let humans = 0;
    while (body.length < 3.5 * MiB) {
      body += filler;
      if (body.length % 7 === 0 || body.length > humans * 200_000) {
        body += claudeUser(`prompt ${humans}`);
        humans++;
      }
    }
    fs.appendFileSync(file, body);
    const start = linkRow(h.db, KEY)!.marker_offset as number;
    const offsets: number[] = [];
    for (let i = 0; i < 6; i++) {
      await h.catalog.tick();
      offsets.push(linkRow(h.db, KEY)!.marker_offset as number);
    }
    expect(offsets[0]! - start).toBeLessThanOrEqual(MiB);
    expect(offsets[0]! - start).toBeGreaterThan(MiB - 4000);
    for (let i = 1; i < offsets.length; i++) expect(offsets[i]! - offsets[i - 1]!).toBeLessThanOrEqual(MiB);
    expect(offsets.at(-1)).toBe(fs.statSync(file).size);
    expect(turns().turns).toBe(humans);
    expect(turns().events).toBe(4);
  });

  it('a 3 MiB single human line is classified across checks with bounded state and counted once', async () => {
    const file = setup();
    const big = claudeUser([
      { type: 'text', text: `review this log:\n${'a\\u00e9 \t'.repeat((3 * MiB) / 8)}` },
    ]);
    expect(big.length).toBeGreaterThan(3 * MiB);
    fs.appendFileSync(file, big + claudeUser('after the big one'));
    const sizes: number[] = [];
    for (let i = 0; i < 5; i++) {
      await h.catalog.tick();
      const st = linkRow(h.db, KEY)!.scan_state as string | null;
      sizes.push(st ? st.length : 0);
    }
    expect(sizes.filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
    expect(Math.max(...sizes)).toBeLessThan(16 * 1024);
    expect(turns().turns).toBe(2);
    expect(linkRow(h.db, KEY)).toMatchObject({ marker_offset: fs.statSync(file).size, scan_state: null });
  });

  it('a 3 MiB tool result is not human, and a 3 MiB self-echo is dropped', async () => {
    const file = setup();
    // Multi-byte characters land on window edges: the scanner must never split one.
    const ownText = `summarise:\n${'lorem ipsüm 😀 \u2003 '.repeat(190_000)}`;
    h.catalog.rememberOwnText(KEY, ownText);
    fs.appendFileSync(
      file,
      claudeUser([{ type: 'tool_result', tool_use_id: 't', content: 'y'.repeat(3 * MiB) }]) +
        claudeUser(ownText) +
        claudeUser(`${ownText} !`),
    );
    for (let i = 0; i < 12; i++) await h.catalog.tick();
    expect(turns()).toEqual({ events: 1, turns: 1 });
    expect(linkRow(h.db, KEY)!.marker_offset).toBe(fs.statSync(file).size);
  });

  it('a file that shrank is re-baselined, never parsed from a stale offset', async () => {
    const file = setup();
    fs.writeFileSync(file, claudeUser('rewritten'));
    await h.catalog.tick();
    expect(turns().events).toBe(0);
    expect(linkRow(h.db, KEY)!.marker_offset).toBe(fs.statSync(file).size);
    fs.appendFileSync(file, claudeUser('after rewrite'));
    await h.catalog.tick();
    expect(turns()).toEqual({ events: 1, turns: 1 });
  });

  it('a replaced file (new inode, even when longer) is re-baselined', async () => {
    const file = setup();
    const size = fs.statSync(file).size;
    fs.writeFileSync(
      `${file}.new`,
      claudeUser('x'.repeat(size)) + claudeUser('old prompt copied by a rewrite'),
    );
    fs.renameSync(`${file}.new`, file);
    await h.catalog.tick();
    expect(turns().events).toBe(0);
    expect(linkRow(h.db, KEY)!.marker_offset).toBe(fs.statSync(file).size);
  });
});

describe('missing sources', () => {
  it('three consecutive misses record one upstream_missing and remove the link', async () => {
    const file = setup();
    fs.rmSync(file);
    await h.catalog.tick();
    await h.catalog.tick();
    expect(missing()).toHaveLength(0);
    await h.catalog.tick();
    expect(missing()).toEqual([
      expect.objectContaining({
        sessionKey: KEY,
        actorType: 'system',
        summary: 'upstream missing via claude',
        payload: { channel: 'claude' },
      }),
    ]);
    expect(linkRow(h.db, KEY)).toBeUndefined();
    await h.catalog.tick();
    expect(missing()).toHaveLength(1);
  });

  it('any other outcome resets the streak', async () => {
    const file = setup();
    const saved = fs.readFileSync(file);
    fs.rmSync(file);
    await h.catalog.tick();
    await h.catalog.tick();
    fs.writeFileSync(file, saved);
    await h.catalog.tick();
    expect(linkRow(h.db, KEY)!.missing_streak).toBe(0);
    fs.rmSync(file);
    await h.catalog.tick();
    await h.catalog.tick();
    expect(missing()).toHaveLength(0);
    await h.catalog.tick();
    expect(missing()).toHaveLength(1);
  });

  it('an I/O error other than not-found (EACCES) neither counts nor resets', async () => {
    let denied = false;
    const fsx: CatalogFs = {
      ...nodeFs,
      statSync(p) {
        if (denied && p.endsWith(`${CLAUDE_ID}.jsonl`))
          throw Object.assign(new Error(`EACCES: permission denied, stat '${p}'`), { code: 'EACCES' });
        return nodeFs.statSync(p);
      },
    };
    const file = setup(fsx);
    fs.rmSync(file);
    await h.catalog.tick();
    await h.catalog.tick();
    denied = true;
    await h.catalog.tick();
    await h.catalog.tick();
    expect(linkRow(h.db, KEY)!.missing_streak).toBe(2);
    expect(missing()).toHaveLength(0);
    denied = false;
    await h.catalog.tick();
    expect(missing()).toHaveLength(1);
  });

  it('EACCES while reading keeps the marker; the bytes are classified once readable', async () => {
    let denied = false;
    const fsx: CatalogFs = {
      ...nodeFs,
      openSync(p, flags) {
        if (denied) throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
        return nodeFs.openSync(p, flags);
      },
    };
    const file = setup(fsx);
    fs.appendFileSync(file, claudeUser('hello'));
    fs.chmodSync(file, 0o000);
    // As root chmod 000 changes nothing: then an injected EACCES stands in for it.
    denied = isReadable(file);
    const before = linkRow(h.db, KEY)!.marker_offset;
    await h.catalog.tick();
    expect(linkRow(h.db, KEY)!.marker_offset).toBe(before);
    expect(turns().events).toBe(0);
    denied = false;
    fs.chmodSync(file, 0o644);
    await h.catalog.tick();
    expect(turns()).toEqual({ events: 1, turns: 1 });
  });
});

describe('recording', () => {
  it('a failed record keeps the marker; the retry records exactly once', async () => {
    const file = setup();
    fs.appendFileSync(file, claudeUser('one') + claudeUser('two'));
    const before = linkRow(h.db, KEY)!.marker_offset;
    h.failRecords(1);
    await h.catalog.tick();
    expect(turns().events).toBe(0);
    expect(linkRow(h.db, KEY)!.marker_offset).toBe(before);
    await h.catalog.tick();
    expect(turns()).toEqual({ events: 1, turns: 2 });
  });

  it('a check retried after its marker write was lost is deduped', async () => {
    const file = setup();
    fs.appendFileSync(file, claudeUser('one'));
    const before = linkRow(h.db, KEY)!;
    await h.catalog.tick();
    h.db
      .prepare('UPDATE catalog_upstream_links SET marker_offset = ? WHERE session_key = ?')
      .run(before.marker_offset, KEY);
    await h.catalog.tick();
    expect(turns()).toEqual({ events: 1, turns: 1 });
    const keys = h.events.filter((e) => e.kind === 'human_direct_message').map((e) => e.dedupeKey);
    expect(keys[0]).toMatch(new RegExp(`^upstream:${KEY}:[0-9a-f]{16}:${String(before.marker_offset)}$`));
  });

  it('one check at a time: concurrent tick() calls share one check', async () => {
    const file = setup();
    fs.appendFileSync(file, claudeUser('one'));
    const [a, b] = [h.catalog.tick(), h.catalog.tick()];
    expect(a).toBe(b);
    await Promise.all([a, b]);
    expect(turns().events).toBe(1);
  });

  it('self-echo: normalised text equal to one of the 10 most recent own texts is dropped', async () => {
    const file = setup();
    for (let i = 0; i <= 10; i++) h.catalog.rememberOwnText(KEY, `  own   message\n${i} `);
    fs.appendFileSync(
      file,
      claudeUser('own message 10') +
        claudeUser([
          { type: 'text', text: 'own message' },
          { type: 'text', text: '5' },
        ]),
    );
    await h.catalog.tick();
    expect(turns().events).toBe(0);
    // The oldest of eleven is no longer among the ten most recent: it counts as human.
    fs.appendFileSync(file, claudeUser('own message 0') + claudeUser('own message 10 and more'));
    await h.catalog.tick();
    expect(turns()).toEqual({ events: 1, turns: 2 });
    expect(h.db.prepare('SELECT COUNT(*) AS n FROM catalog_own_texts').get()).toEqual({ n: 10 });
  });

  it('unwatched links are not checked', async () => {
    const file = setup();
    h.db.prepare('DELETE FROM session_watch_cursors').run();
    fs.rmSync(file);
    for (let i = 0; i < 4; i++) await h.catalog.tick();
    expect(missing()).toHaveLength(0);
  });
});

describe('Pi links', () => {
  it('follows a v3 file and re-baselines when Pi rewrites it', async () => {
    h = makeHarness();
    const file = writePi(h.roots.pi);
    h.catalog.adopt({ provider: 'pi', threadId: PI_ID });
    const key = `agent:main:adopted:pi:${PI_ID}`;
    fs.appendFileSync(file, piMessage({ role: 'user', content: 'more' }));
    await h.catalog.tick();
    expect(humanTurns(h.events, key)).toEqual({ events: 1, turns: 1 });
    const body = fs.readFileSync(file);
    fs.rmSync(file);
    fs.writeFileSync(file, body);
    await h.catalog.tick();
    expect(humanTurns(h.events, key).events).toBe(1);
  });
});
