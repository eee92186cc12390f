// OpenCode: a small OpenCode-shaped SQLite database (reference §3), read read-only while another
// connection writes to it, plus the older JSON layout as fallback.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { humanTurns, linkRow, makeHarness, type Harness } from './helpers';

const SID = 'ses_3f9a2c1d7ffe4Xq1Lm4Np8Rs2T';
const KEY = `agent:main:adopted:opencode:${SID}`;
let h: Harness;
let w: Database.Database;
let seq = 0;
const T0 = Date.parse('2026-03-02T11:00:00Z');

function schema(db: Database.Database): void {
  db.pragma('journal_mode = WAL');
  db.exec(`
    CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, slug TEXT, directory TEXT NOT NULL,
      title TEXT NOT NULL, version TEXT, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, time_archived INTEGER);
    CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
      time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
    CREATE INDEX message_session ON message (session_id, time_created, id);
    CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL REFERENCES message(id) ON DELETE CASCADE,
      session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
    CREATE INDEX part_message ON part (message_id, id);`);
  db.pragma('foreign_keys = ON');
}

function addSession(id: string, title: string, extra: { parent?: string; archived?: number } = {}): void {
  w.prepare('INSERT INTO session VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
    id,
    'proj1',
    extra.parent ?? null,
    'brave-otter',
    '/home/ana/src/ledger-api',
    title,
    '1.2.10',
    T0,
    T0,
    extra.archived ?? null,
  );
}

/** Adds a message with parts; returns its id. `parts` undefined → a user row still being written. */
function addMessage(
  role: 'user' | 'assistant',
  parts: Record<string, unknown>[],
  at = T0 + ++seq * 1000,
  sid = SID,
): string {
  const id = `msg_${String(at).padStart(14, '0')}${String(seq).padStart(4, '0')}`;
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
      .run(`prt_${id.slice(4)}${i}`, id, sid, at, at, JSON.stringify(p)),
  );
  w.prepare('UPDATE session SET time_updated = ? WHERE id = ?').run(at, sid);
  return id;
}

const text = (t: string, extra: Record<string, unknown> = {}) => ({ type: 'text', text: t, ...extra });

beforeEach(() => {
  h = makeHarness();
  seq = 0;
  w = new Database(path.join(h.roots.opencode, 'opencode.db'));
  schema(w);
  addSession(SID, 'Fix 500 on /invoices');
  addMessage('user', [text('the /invoices endpoint 500s')]);
  addMessage('assistant', [{ type: 'tool', tool: 'edit', state: { status: 'completed' } }]);
});
afterEach(() => {
  w.close();
  h.cleanup();
});

async function adoptThenTurns(add: () => void): Promise<number> {
  h.catalog.adopt({ provider: 'opencode', threadId: SID });
  add();
  await h.catalog.tick();
  const r = humanTurns(h.events, KEY);
  expect(r.events).toBeLessThanOrEqual(1);
  return r.turns;
}

describe('OpenCode discovery', () => {
  it('lists top-level, unarchived sessions from the database', async () => {
    addSession('ses_child', 'child', { parent: SID });
    addSession('ses_old', 'archived', { archived: T0 });
    const list = h.catalog.list().filter((e) => e.provider === 'opencode');
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      threadId: SID,
      title: 'Fix 500 on /invoices',
      cwd: '/home/ana/src/ledger-api',
      createdAt: T0,
      lastActivityAt: T0 + 2000,
    });
    expect(list[0]!.sizeBytes).toBeGreaterThan(50);
    expect(await h.catalog.listAsync()).toEqual(h.catalog.list());
  });

  it('adoption imports the visible conversation (tool calls in short form) and baselines at the newest message', () => {
    h.catalog.adopt({ provider: 'opencode', threadId: SID });
    expect(h.imported.get(KEY)).toEqual([
      { role: 'user', text: 'the /invoices endpoint 500s' },
      { role: 'assistant', text: '', toolCalls: [{ name: 'edit' }] },
    ]);
    expect(JSON.parse(linkRow(h.db, KEY)!.marker_json as string)).toMatchObject({ createdAt: T0 + 2000 });
  });
});

describe('OpenCode classification', () => {
  it('counts a typed prompt, also one carrying synthetic file-read parts', async () => {
    expect(
      await adoptThenTurns(() => {
        addMessage('user', [
          text('look at @src/a.ts'),
          text('Called the Read tool…', { synthetic: true }),
          { type: 'file', filename: 'a.ts' },
        ]);
        addMessage('assistant', [text('ok')]);
        addMessage('user', [text('thanks')]);
      }),
    ).toBe(2);
  });

  it('ignores synthetic-only, ignored, compaction, continue follow-ups, image-only and assistant messages', async () => {
    expect(
      await adoptThenTurns(() => {
        addMessage('user', [text('Plan mode is active.', { synthetic: true })]);
        addMessage('user', [text('hidden', { ignored: true })]);
        addMessage('user', [{ type: 'compaction', auto: true }]);
        addMessage('user', [
          text(
            'Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed.',
            { synthetic: true, metadata: { compaction_continue: true } },
          ),
        ]);
        addMessage('user', [
          text(
            'Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed.',
          ),
        ]);
        addMessage('user', [{ type: 'file', mime: 'image/png', filename: 'x.png' }]);
        addMessage('assistant', [text('reply')]);
      }),
    ).toBe(0);
  });

  it('ignores the replay of the interrupted prompt after an overflow compaction', async () => {
    expect(
      await adoptThenTurns(() => {
        addMessage('user', [text('refactor the invoices module')]);
        addMessage('user', [{ type: 'compaction', auto: true, overflow: true }]);
        addMessage('user', [text('refactor the invoices module')]);
      }),
    ).toBe(1);
  });

  it('waits for a user row still being written, then counts it once its parts land', async () => {
    h.catalog.adopt({ provider: 'opencode', threadId: SID });
    h.clock.t = T0 + 10_000;
    const id = addMessage('user', []);
    await h.catalog.tick();
    expect(humanTurns(h.events, KEY).events).toBe(0);
    w.prepare('INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)').run(
      'prt_late',
      id,
      SID,
      T0,
      T0,
      JSON.stringify(text('late parts')),
    );
    await h.catalog.tick();
    expect(humanTurns(h.events, KEY)).toEqual({ events: 1, turns: 1 });
  });

  it('hands over the visible messages it classified, tool calls in short form', async () => {
    const live = makeHarness({ live: true, roots: { opencode: h.roots.opencode } });
    try {
      live.catalog.adopt({ provider: 'opencode', threadId: SID });
      addMessage('user', [text('speed it up'), text('Called the Read tool', { synthetic: true })]);
      addMessage('assistant', [
        text('Running the tests.'),
        {
          type: 'tool',
          callID: 'c9',
          tool: 'bash',
          state: { status: 'completed', input: { command: 'npm test' } },
        },
      ]);
      await live.catalog.tick();
      await live.catalog.tick();
      const got = live.live.get(KEY)!;
      expect(got.map((m) => [m.role, m.text])).toEqual([
        ['user', 'speed it up'],
        ['assistant', 'Running the tests.'],
      ]);
      expect(got[1]!.toolCalls).toEqual([{ id: 'c9', name: 'bash', arguments: { command: 'npm test' } }]);
    } finally {
      live.cleanup();
    }
  });

  it('drops self-echo', async () => {
    h.catalog.adopt({ provider: 'opencode', threadId: SID });
    h.catalog.rememberOwnText(KEY, 'run   the tests');
    addMessage('user', [text('run the tests\n')]);
    await h.catalog.tick();
    expect(humanTurns(h.events, KEY).events).toBe(0);
  });
});

describe('OpenCode monitor', () => {
  it('reads while another process keeps writing (WAL), counting every human turn exactly once', async () => {
    h.catalog.adopt({ provider: 'opencode', threadId: SID });
    const script = path.join(h.dir, 'writer.cjs');
    fs.writeFileSync(
      script,
      `const Database = require(${JSON.stringify(require.resolve('better-sqlite3'))});
       const db = new Database(process.argv[2]); db.pragma('busy_timeout = 5000');
       const ins = db.prepare('INSERT INTO message VALUES (?, ?, ?, ?, ?)');
       const part = db.prepare('INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)');
       let n = 0; const end = Date.now() + 1200; let t = ${T0} + 100000;
       while (Date.now() < end) {
         db.transaction(() => { for (let i = 0; i < 3; i++) {
           const id = 'msg_w' + String(++t).padStart(16, '0');
           ins.run(id, '${SID}', t, t, JSON.stringify({ role: i === 2 ? 'assistant' : 'user' }));
           part.run('prt_' + id, id, '${SID}', t, t, JSON.stringify({ type: 'text', text: 'p' + t }));
           if (i !== 2) n++;
         } })();
       }
       process.stdout.write(String(n));`,
    );
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [script, path.join(h.roots.opencode, 'opencode.db')], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const done = new Promise<number | null>((r) => child.on('close', r));
    let ticks = 0;
    let exited = false;
    void done.then(() => (exited = true));
    while (!exited) {
      await h.catalog.tick();
      ticks++;
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(await done).toBe(0);
    // Drain: each check reads at most one batch of messages.
    for (let i = 0, prev = ''; i < 1000 && linkRow(h.db, KEY)!.marker_json !== prev; i++) {
      prev = linkRow(h.db, KEY)!.marker_json as string;
      await h.catalog.tick();
    }
    expect(ticks).toBeGreaterThan(3);
    const written = Number(out);
    expect(written).toBeGreaterThan(10);
    expect(humanTurns(h.events, KEY).turns).toBe(written);
  });

  it('a deleted session row is missing after three checks; a failed query is inconclusive', async () => {
    h.catalog.adopt({ provider: 'opencode', threadId: SID });
    w.prepare('DELETE FROM session WHERE id = ?').run(SID);
    await h.catalog.tick();
    await h.catalog.tick();
    // A query that fails for another reason (here: the table is briefly renamed) proves nothing.
    w.exec('ALTER TABLE session RENAME TO session_old');
    await h.catalog.tick();
    expect(linkRow(h.db, KEY)!.missing_streak).toBe(2);
    w.exec('ALTER TABLE session_old RENAME TO session');
    await h.catalog.tick();
    expect(h.events.filter((e) => e.kind === 'upstream_missing')).toEqual([
      expect.objectContaining({
        summary: 'upstream missing via opencode',
        payload: { channel: 'opencode' },
        actorType: 'system',
      }),
    ]);
  });
});

describe('OpenCode JSON layout (older versions)', () => {
  it('lists, adopts and follows a session stored as JSON files', async () => {
    w.close();
    h.cleanup();
    h = makeHarness();
    w = new Database(':memory:');
    const store = path.join(h.roots.opencode, 'storage');
    const put = (rel: string, v: unknown) => {
      fs.mkdirSync(path.dirname(path.join(store, rel)), { recursive: true });
      fs.writeFileSync(path.join(store, rel), JSON.stringify(v));
    };
    put(`session/proj1/${SID}.json`, {
      id: SID,
      projectID: 'proj1',
      title: 'Legacy',
      directory: '/srv/app',
      time: { created: T0, updated: T0 },
    });
    const msg = (id: string, role: string, at: number, parts: Record<string, unknown>[]) => {
      put(`message/${SID}/${id}.json`, { id, sessionID: SID, role, time: { created: at } });
      parts.forEach((p, i) =>
        put(`part/${id}/prt_${id}_${i}.json`, { id: `prt_${i}`, messageID: id, sessionID: SID, ...p }),
      );
    };
    msg('msg_001', 'user', T0 + 1, [text('first')]);
    expect(h.catalog.list().filter((e) => e.provider === 'opencode')).toEqual([
      expect.objectContaining({ threadId: SID, title: 'Legacy', cwd: '/srv/app' }),
    ]);
    h.catalog.adopt({ provider: 'opencode', threadId: SID });
    msg('msg_002', 'assistant', T0 + 2, [text('reply')]);
    msg('msg_003', 'user', T0 + 3, [text('second')]);
    msg('msg_004', 'user', T0 + 4, [text('synthetic', { synthetic: true })]);
    await h.catalog.tick();
    expect(humanTurns(h.events, KEY)).toEqual({ events: 1, turns: 1 });
    fs.rmSync(path.join(store, `session/proj1/${SID}.json`));
    for (let i = 0; i < 3; i++) await h.catalog.tick();
    expect(h.events.filter((e) => e.kind === 'upstream_missing')).toHaveLength(1);
  });
});
