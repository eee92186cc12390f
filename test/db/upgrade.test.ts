// Migration 009 on a database with data in it: built at version 8 by the runner itself
// (migrateTo), filled the way the 0.x app filled it, then upgraded. Everything that belongs to a
// session survives; rows that belonged to no session are dropped; counters are never reused;
// the foreign keys hold and cascade; no enum CHECK is left.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway } from '../../electron/gateway';
import { migrate, migrateTo } from '../../electron/gateway/db/migrate';
import { MIGRATIONS } from '../../electron/gateway/db/migrations';
import { applyPragmas, DB_FILE } from '../../electron/gateway/db/open';
import { openSqlite, type Db } from '../../electron/gateway/db/sqlite';
import { collectingLogger } from '../helpers/logger';
import { tempDir } from '../helpers/temp';

const FK_VERSION = 9;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function openAt(version: number): { db: Db; dir: string } {
  const dir = tempDir('sightline-upgrade-');
  dirs.push(dir);
  const db = openSqlite(path.join(dir, DB_FILE));
  applyPragmas(db);
  expect(migrateTo(db, MIGRATIONS, version)).toBe(version);
  return { db, dir };
}

const all = (db: Db, sql: string, ...params: unknown[]) => db.prepare(sql).all(...params);
const one = (db: Db, sql: string) => db.prepare(sql).get() as Record<string, unknown>;

/** What a version-8 database of a person who used the app looks like, orphans included. */
function fillVersion8(db: Db): void {
  const run = (sql: string, ...p: unknown[]) => db.prepare(sql).run(...p);
  const session = (key: string, agent: string, at: number, parent: string | null = null) =>
    run(`INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?)`, key, agent, parent, `label ${key}`, at, at);
  session('agent:main:main', 'main', 1);
  session('agent:main:subagent:w', 'main', 2, 'agent:main:main');
  session('global', 'main', 3);
  session('global', 'ops', 4); // the same bare key twice: the oldest stays
  const event = (key: string, agent: string, kind: string) =>
    run(
      `INSERT INTO session_state_events (session_key, agent_id, kind, actor_type, occurred_at, summary) VALUES (?, ?, ?, 'human', 10, 's')`,
      key,
      agent,
      kind,
    );
  for (let i = 0; i < 5; i++) event('agent:main:subagent:w', 'main', 'human_direct_message');
  event('global', 'ops', 'goal_changed');
  event('agent:main:never-a-session', 'main', 'upstream_missing');
  // The newest rows were deleted (pruned by hand): the counter is above the highest row.
  run(`DELETE FROM session_state_events WHERE sequence > 5`);
  run(`INSERT INTO session_state_heads VALUES ('agent:main:subagent:w', 'main', 5, 0)`);
  run(`INSERT INTO session_watch_cursors VALUES ('agent:main:subagent:w', 'agent:main:main', 1, 5, 5, 10)`);
  run(`INSERT INTO session_watch_cursors VALUES ('agent:main:gone', 'agent:main:main', 0, 0, 0, 10)`);
  run(`INSERT INTO agents VALUES ('main', 'Main', 'scripted', '{}', '', 300, 'agent:main:main', 1, 1)`);
  const message = (key: string, text: string) =>
    run(
      `INSERT INTO session_messages (session_key, role, actor_type, text, created_at) VALUES (?, 'user', 'human', ?, 1)`,
      key,
      text,
    );
  message('agent:main:subagent:w', 'kept');
  message('agent:main:deleted-long-ago', 'orphan');
  message('agent:main:subagent:w', 'newest, then deleted');
  run(`DELETE FROM session_messages WHERE text = 'newest, then deleted'`);
  run(`INSERT INTO session_goals VALUES ('agent:main:subagent:w', 'ship', 'active', 1)`);
  run(`INSERT INTO session_goals VALUES ('agent:main:deleted-long-ago', 'orphan', 'done', 1)`);
  run(
    `INSERT INTO runs (run_id, session_key, status, started_at) VALUES ('r1', 'agent:main:subagent:w', 'idle', 1)`,
  );
  run(
    `INSERT INTO runs (run_id, session_key, status, started_at) VALUES ('r0', 'agent:main:deleted-long-ago', 'failed', 1)`,
  );
  const link = (key: string) =>
    run(
      `INSERT INTO catalog_upstream_links (session_key, provider, thread_id, host_id, source_ref, source_hash, generation, created_at, updated_at)
       VALUES (?, 'codex', 't', 'h', '{}', 'x', 1, 1, 1)`,
      key,
    );
  session('agent:main:adopted:codex:t', 'main', 5);
  link('agent:main:adopted:codex:t');
  link('agent:main:adopted:claude:deleted'); // delete never removed links before 009
  run(
    `INSERT INTO catalog_own_texts (session_key, text, created_at) VALUES ('agent:main:adopted:codex:t', 'hi', 1)`,
  );
  run(`INSERT INTO ui_inbox_dismissals VALUES ('notice:1', 1)`);
}

describe(`migration ${FK_VERSION}: foreign keys, no enum CHECKs`, () => {
  it('upgrades a database with data: keeps what belongs to a session, drops orphans, keeps counters', () => {
    const { db } = openAt(FK_VERSION - 1);
    fillVersion8(db);
    const counters = Object.fromEntries(
      (all(db, 'SELECT name, seq FROM sqlite_sequence') as { name: string; seq: number }[]).map((r) => [
        r.name,
        r.seq,
      ]),
    );
    expect(counters).toMatchObject({ session_state_events: 7, session_messages: 3 });

    expect(migrate(db, MIGRATIONS)).toBe(MIGRATIONS.length);

    expect(all(db, 'SELECT key, agent_id FROM sessions ORDER BY key')).toEqual([
      { key: 'agent:main:adopted:codex:t', agent_id: 'main' },
      { key: 'agent:main:main', agent_id: 'main' },
      { key: 'agent:main:subagent:w', agent_id: 'main' },
      { key: 'global', agent_id: 'main' },
    ]);
    // The signal log, heads and cursors have no foreign key: all of them stay, orphans included.
    expect(one(db, 'SELECT count(*) AS n FROM session_state_events').n).toBe(5);
    expect(all(db, 'SELECT target_key FROM session_watch_cursors ORDER BY target_key')).toEqual([
      { target_key: 'agent:main:gone' },
      { target_key: 'agent:main:subagent:w' },
    ]);
    expect(all(db, 'SELECT session_key, text FROM session_messages')).toEqual([
      { session_key: 'agent:main:subagent:w', text: 'kept' },
    ]);
    expect(all(db, 'SELECT session_key FROM session_goals')).toEqual([
      { session_key: 'agent:main:subagent:w' },
    ]);
    expect(all(db, 'SELECT run_id FROM runs')).toEqual([{ run_id: 'r1' }]);
    expect(all(db, 'SELECT session_key FROM catalog_upstream_links')).toEqual([
      { session_key: 'agent:main:adopted:codex:t' },
    ]);
    expect(one(db, 'SELECT count(*) AS n FROM catalog_own_texts').n).toBe(1);
    expect(one(db, 'SELECT count(*) AS n FROM ui_inbox_dismissals').n).toBe(1);
    expect(all(db, 'SELECT id, provider, heartbeat_seconds FROM agents')).toEqual([
      { id: 'main', provider: 'scripted', heartbeat_seconds: 300 },
    ]);

    // Counters carried over: the next sequence and message id are above everything ever used.
    const seq = db
      .prepare(
        `INSERT INTO session_state_events (session_key, agent_id, kind, actor_type, occurred_at, summary) VALUES ('x', 'main', 'compacted', 'system', 1, 's') RETURNING sequence`,
      )
      .get() as { sequence: number };
    expect(seq.sequence).toBe(8);
    const id = db
      .prepare(
        `INSERT INTO session_messages (session_key, role, actor_type, text, created_at) VALUES ('agent:main:main', 'user', 'human', 't', 1) RETURNING id`,
      )
      .get() as { id: number };
    expect(id.id).toBe(4);

    // Search (006) still follows the rebuilt transcript table: old rows found, new rows indexed.
    const search = (q: string) =>
      all(
        db,
        `SELECT rowid AS id FROM session_messages_fts WHERE session_messages_fts MATCH ? ORDER BY rowid`,
        q,
      );
    expect(search('kept')).toEqual([{ id: 1 }]);
    expect(search('orphan')).toEqual([]);
    db.prepare(
      `INSERT INTO session_messages (session_key, role, actor_type, text, created_at) VALUES ('agent:main:main', 'user', 'human', 'findable words', 1)`,
    ).run();
    expect(search('findable')).toEqual([{ id: 5 }]);
    db.prepare(`DELETE FROM session_messages WHERE text = 'findable words'`).run();
    expect(search('findable')).toEqual([]);
    // The foreign keys hold and cascade; no table names an enum any more.
    expect(db.pragma('foreign_key_check')).toEqual([]);
    expect(() =>
      db
        .prepare(
          `INSERT INTO runs (run_id, session_key, status, started_at) VALUES ('r9', 'agent:main:nobody', 'idle', 1)`,
        )
        .run(),
    ).toThrow(/FOREIGN KEY constraint failed/);
    db.prepare(`DELETE FROM sessions WHERE key = 'agent:main:subagent:w'`).run();
    for (const t of ['session_messages', 'session_goals', 'runs'])
      expect(one(db, `SELECT count(*) AS n FROM ${t} WHERE session_key = 'agent:main:subagent:w'`).n, t).toBe(
        0,
      );
    const schema = String(one(db, `SELECT group_concat(sql, ';') AS s FROM sqlite_master`).s);
    expect(schema).not.toMatch(/CHECK \(\w+ IN \('/);
    db.close();
  });

  it('ends with the same schema as a database created at the latest version', () => {
    const upgraded = openAt(FK_VERSION - 1);
    fillVersion8(upgraded.db);
    migrate(upgraded.db, MIGRATIONS);
    const fresh = openAt(MIGRATIONS.length);
    const shape = (db: Db) =>
      all(
        db,
        `SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`,
      );
    expect(shape(upgraded.db)).toEqual(shape(fresh.db));
    upgraded.db.close();
    fresh.db.close();
  });

  it('a gateway opens the upgraded database and goes on from it', () => {
    const { db, dir } = openAt(FK_VERSION - 1);
    fillVersion8(db);
    db.close();
    const gw = createGateway({
      dataDir: dir,
      autoStart: false,
      now: () => 1_000,
      logger: collectingLogger(),
    });
    try {
      expect(gw.state.version('agent:main:subagent:w')).toBe(5);
      expect(gw.goals.get('agent:main:subagent:w')?.objective).toBe('ship');
      expect(gw.transcripts.all('agent:main:subagent:w').map((m) => m.text)).toEqual(['kept']);
      gw.sessions.delete('agent:main:subagent:w');
      expect(gw.state.version('agent:main:subagent:w')).toBe(0);
      gw.sessions.create({ key: 'agent:main:subagent:w' });
      const next = gw.state.record({
        sessionKey: 'agent:main:subagent:w',
        kind: 'human_direct_message',
        actorType: 'human',
        summary: 'human message via desktop',
      });
      expect(next?.sequence).toBe(8);
    } finally {
      gw.close();
    }
  });

  it('migrateTo stops at the version asked for and never goes down', () => {
    const { db } = openAt(2);
    expect(db.pragma('user_version', { simple: true })).toBe(2);
    expect(all(db, `SELECT name FROM sqlite_master WHERE name = 'catalog_upstream_links'`)).toEqual([]);
    expect(migrateTo(db, MIGRATIONS, 1)).toBe(2);
    expect(migrateTo(db, MIGRATIONS, 3)).toBe(3);
    expect(() => migrateTo(db, MIGRATIONS, MIGRATIONS.length + 1)).toThrow(
      `No migration to version ${MIGRATIONS.length + 1} (this build has 1..${MIGRATIONS.length})`,
    );
    db.close();
  });
});
