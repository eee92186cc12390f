// Live transcripts of adopted sessions, through the gateway: what the monitor reads upstream is
// appended to the Sightline transcript, marked as the tool's, in order and exactly once — also
// when a check fails halfway (one transaction per link) or has to take the rows in two bites
// (the 1 MiB window). The transcripts are the real tools' own (test/fixtures/live, test/fixtures/tools).
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openTestGateway, tempDir, type TestGateway } from '../helpers/gateway';

const CLAUDE_ID = '5f16324e-5f90-4780-bb10-1bd0e51f8b27';
const CLAUDE_FILE = path.resolve(`test/fixtures/live/claude/projects/-tmp-ccfx-project/${CLAUDE_ID}.jsonl`);
const CODEX_FILE = path.resolve(
  'test/fixtures/tools/codex/sessions/2026/12/03/rollout-2026-12-03T09-49-04-01a23b4e-b7b2-7cb1-b9af-646d3a16f82c.jsonl',
);
const CODEX_ID = '01a23b4e-b7b2-7cb1-b9af-646d3a16f82c';

let t: TestGateway | undefined;
let root: string;
afterEach(() => {
  t?.cleanup();
  t = undefined;
  fs.rmSync(root, { recursive: true, force: true });
});

const lines = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => `${l}\n`);

/** Empty catalog roots of every tool under a fresh temp folder. */
function makeRoots() {
  root = tempDir();
  const roots = {
    claude: path.join(root, 'claude'),
    codex: path.join(root, 'codex'),
    opencode: path.join(root, 'oc'),
    pi: path.join(root, 'pi'),
  };
  for (const r of Object.values(roots)) fs.mkdirSync(r, { recursive: true });
  return roots;
}

/** A gateway whose catalog root holds the first `upTo` rows of a real transcript. */
function adoptPart(provider: 'claude' | 'codex', file: string, rel: string, upTo: number) {
  const roots = makeRoots();
  const target = path.join(roots[provider], rel);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const rows = lines(file);
  fs.writeFileSync(target, rows.slice(0, upTo).join(''));
  t = openTestGateway({ catalogRoots: roots });
  const id = provider === 'claude' ? CLAUDE_ID : CODEX_ID;
  const key = t.gw.catalog.adopt({ provider, threadId: id }).key;
  return { gw: t.gw, key, target, rest: rows.slice(upTo) };
}

const shown = (gw: TestGateway['gw'], key: string) =>
  gw.transcripts.all(key).map((m) => ({
    role: m.role,
    text: m.text,
    ...(m.toolCalls ? { calls: m.toolCalls.map((c) => c.name) } : {}),
    ...(m.upstream ? { upstream: m.upstream } : {}),
  }));

const CLAUDE_ADDED = [
  { role: 'assistant', text: 'No response requested.', upstream: 'claude' },
  { role: 'user', text: 'Now list the TODO comments', upstream: 'claude' },
  { role: 'assistant', text: 'Searching for TODO comments.', upstream: 'claude' },
  { role: 'assistant', text: '', calls: ['Grep'], upstream: 'claude' },
  {
    role: 'assistant',
    text: 'There is one TODO comment: `src/app.js` line 2, "TODO: handle errors".',
    upstream: 'claude',
  },
];

describe('live transcripts of adopted sessions', () => {
  it('Claude Code: the rows added upstream show once, in order, marked as the tool’s', async () => {
    const { gw, key, target, rest } = adoptPart(
      'claude',
      CLAUDE_FILE,
      `-tmp-ccfx-project/${CLAUDE_ID}.jsonl`,
      5,
    );
    const adopted = shown(gw, key);
    expect(adopted).toEqual([
      { role: 'user', text: 'Summarise the README in this folder' },
      { role: 'assistant', text: "I'll read the README first." },
      { role: 'assistant', text: '', calls: ['Read'] },
    ]);
    // The first new rows (a queue-operation, the synthetic reply, the prompt) and half of the next
    // one: only complete lines are taken.
    const half = rest.slice(0, 3).join('') + rest[3]!.slice(0, 40);
    fs.appendFileSync(target, half);
    await gw.catalog.tick();
    expect(shown(gw, key)).toEqual([...adopted, ...CLAUDE_ADDED.slice(0, 2)]);
    fs.appendFileSync(target, rest[3]!.slice(40) + rest.slice(4).join(''));
    await gw.catalog.tick();
    await gw.catalog.tick();
    expect(shown(gw, key)).toEqual([...adopted, ...CLAUDE_ADDED]);
    // The person's prompt upstream is recorded once, too.
    const hdm = gw.state.changesSince(key, 0).events.filter((e) => e.kind === 'human_direct_message');
    expect(hdm.map((e) => e.summary)).toEqual(['human message via claude']);
  });

  it('a check that fails halfway shows nothing and moves nothing; the retry shows everything once', async () => {
    const { gw, key, target, rest } = adoptPart(
      'claude',
      CLAUDE_FILE,
      `-tmp-ccfx-project/${CLAUDE_ID}.jsonl`,
      5,
    );
    const adopted = shown(gw, key);
    fs.appendFileSync(target, rest.join(''));
    // The third message's write fails (a full disk, say): the link's whole transaction rolls back.
    let inserts = 0;
    gw.db.function('fail_third_insert', () => (++inserts === 3 ? 1 : 0));
    gw.db.exec(`CREATE TEMP TRIGGER fail_insert BEFORE INSERT ON session_messages
      WHEN fail_third_insert() = 1 BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`);
    const version = gw.state.version(key);
    await gw.catalog.tick();
    expect(shown(gw, key)).toEqual(adopted);
    expect(gw.state.version(key)).toBe(version);
    await gw.catalog.tick();
    expect(shown(gw, key)).toEqual([...adopted, ...CLAUDE_ADDED]);
    expect(gw.state.changesSince(key, version).events.map((e) => e.kind)).toEqual(['human_direct_message']);
    gw.db.exec('DROP TRIGGER fail_insert');
  });

  it('more than one window of new rows: taken in two checks, each message once, in order', async () => {
    const { gw, key, target, rest } = adoptPart(
      'claude',
      CLAUDE_FILE,
      `-tmp-ccfx-project/${CLAUDE_ID}.jsonl`,
      12,
    );
    expect(rest).toEqual([]);
    const adopted = shown(gw, key).length;
    // 40 replies of ~40 KiB each (1.6 MiB): more than the 1 MiB a check reads.
    const reply = JSON.parse(lines(CLAUDE_FILE)[11]!) as {
      message: { content: { text: string }[] };
      uuid: string;
    };
    const rows = Array.from({ length: 40 }, (_, i) => {
      reply.uuid = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      reply.message.content[0]!.text = `reply ${i} ` + 'x'.repeat(40 * 1024);
      return `${JSON.stringify(reply)}\n`;
    });
    fs.appendFileSync(target, rows.join(''));
    await gw.catalog.tick();
    const first = shown(gw, key).length - adopted;
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThan(40);
    await gw.catalog.tick();
    await gw.catalog.tick();
    const texts = shown(gw, key)
      .slice(adopted)
      .map((m) => m.text.slice(0, m.text.indexOf(' ', 6)));
    expect(texts).toEqual(Array.from({ length: 40 }, (_, i) => `reply ${i}`));
  });

  it('OpenCode: new messages by message id, also several in the same millisecond, once', async () => {
    const roots = makeRoots();
    const w = new Database(path.join(roots.opencode, 'opencode.db'));
    try {
      w.pragma('journal_mode = WAL');
      w.exec(`
        CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, slug TEXT, directory TEXT NOT NULL,
          title TEXT NOT NULL, version TEXT, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, time_archived INTEGER);
        CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL,
          time_updated INTEGER NOT NULL, data TEXT NOT NULL);
        CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
          time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);`);
      const sid = 'ses_3f9a2c1d7ffe4Xq1Lm4Np8Rs2T';
      const t0 = Date.now() - 3_600_000;
      w.prepare('INSERT INTO session VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
        sid,
        'p',
        null,
        's',
        '/src/app',
        'Fix it',
        '1.2.10',
        t0,
        t0,
        null,
      );
      let n = 0;
      const add = (role: string, at: number, parts: Record<string, unknown>[]) => {
        const id = `msg_${String(at).padStart(14, '0')}${String(++n).padStart(4, '0')}`;
        w.prepare('INSERT INTO message VALUES (?, ?, ?, ?, ?)').run(
          id,
          sid,
          at,
          at,
          JSON.stringify({ role, time: { created: at } }),
        );
        parts.forEach((p, i) =>
          w
            .prepare('INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)')
            .run(`prt_${n}_${i}`, id, sid, at, at, JSON.stringify(p)),
        );
      };
      add('user', t0 + 1000, [{ type: 'text', text: 'the endpoint 500s' }]);
      t = openTestGateway({ catalogRoots: roots });
      const gw = t.gw;
      const key = gw.catalog.adopt({ provider: 'opencode', threadId: sid }).key;
      const adopted = shown(gw, key);
      // Three messages in one millisecond: their ids order them.
      add('assistant', t0 + 2000, [{ type: 'text', text: 'Looking.' }]);
      add('assistant', t0 + 2000, [{ type: 'tool', tool: 'edit', state: { status: 'completed' } }]);
      add('user', t0 + 2000, [{ type: 'text', text: 'also the tests' }]);
      await gw.catalog.tick();
      await gw.catalog.tick();
      expect(shown(gw, key).slice(adopted.length)).toEqual([
        { role: 'assistant', text: 'Looking.', upstream: 'opencode' },
        { role: 'assistant', text: '', calls: ['edit'], upstream: 'opencode' },
        { role: 'user', text: 'also the tests', upstream: 'opencode' },
      ]);
    } finally {
      w.close();
    }
  });

  it('Codex 0.171.0: the resumed turn shows once, its context and mirrors never', async () => {
    const rows = lines(CODEX_FILE);
    // Up to the second prompt's first row (the resumed `codex exec`).
    const cut = rows.findIndex((r, i) => i > 13 && r.includes('Now list the TODO comments'));
    const { gw, key, target, rest } = adoptPart(
      'codex',
      CODEX_FILE,
      path.relative(path.resolve('test/fixtures/tools/codex/sessions'), CODEX_FILE),
      cut,
    );
    const adopted = shown(gw, key);
    fs.appendFileSync(target, rest.join(''));
    await gw.catalog.tick();
    await gw.catalog.tick();
    const added = shown(gw, key).slice(adopted.length);
    expect(added.filter((m) => m.role === 'user')).toEqual([
      { role: 'user', text: 'Now list the TODO comments', upstream: 'codex' },
    ]);
    expect(added.every((m) => m.upstream === 'codex')).toBe(true);
  });
});
