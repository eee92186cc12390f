// The migration runner with foreign keys: off while migrating (a table rebuild must not cascade),
// checked before the commit (a dangling reference aborts the whole upgrade), on again after.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  migrate,
  MigrationForeignKeyError,
  migrateTo,
  type Migration,
} from '../../electron/gateway/db/migrate';
import { MIGRATIONS } from '../../electron/gateway/db/migrations';
import { applyPragmas, DB_FILE } from '../../electron/gateway/db/open';
import { openSqlite, type Db } from '../../electron/gateway/db/sqlite';
import { tempDir } from '../helpers/temp';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A database at the latest version with one session and its transcript, goal and run. */
function openWithSession(): Db {
  const dir = tempDir('sightline-migrate-fk-');
  dirs.push(dir);
  const db = openSqlite(path.join(dir, DB_FILE));
  applyPragmas(db);
  migrate(db, MIGRATIONS);
  db.prepare(
    `INSERT INTO sessions (key, agent_id, label, created_at, updated_at) VALUES (?, 'main', 'w', 1, 1)`,
  ).run('agent:main:w');
  db.prepare(
    `INSERT INTO session_messages (session_key, role, actor_type, text, created_at) VALUES ('agent:main:w', 'user', 'human', 'hello', 2)`,
  ).run();
  db.prepare(`INSERT INTO session_goals VALUES ('agent:main:w', 'ship it', 'active', 3)`).run();
  db.prepare(
    `INSERT INTO runs (run_id, session_key, status, started_at) VALUES ('r1', 'agent:main:w', 'idle', 4)`,
  ).run();
  return db;
}

const next = (up: string): Migration[] => [
  ...MIGRATIONS,
  { version: MIGRATIONS.length + 1, name: 'next', up },
];
const count = (db: Db, table: string) =>
  (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

/** SQLite's recipe for changing a table: create the new one, copy, drop the old, rename, re-index. */
function rebuildSessions(db: Db): string {
  const table = db
    .prepare(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'sessions'`)
    .get() as {
    sql: string;
  };
  const indexes = db
    .prepare(
      `SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'sessions' AND sql IS NOT NULL`,
    )
    .all() as { sql: string }[];
  return [
    table.sql.replace(/^CREATE TABLE "?sessions"?/, 'CREATE TABLE sessions_new') + ';',
    'INSERT INTO sessions_new SELECT * FROM sessions;',
    'DROP TABLE sessions;',
    'ALTER TABLE sessions_new RENAME TO sessions;',
    ...indexes.map((i) => `${i.sql};`),
  ].join('\n');
}

describe('migrations and foreign keys', () => {
  it('a migration that rebuilds sessions keeps every transcript, goal and run (no cascade while migrating)', () => {
    const db = openWithSession();
    expect(migrate(db, next(rebuildSessions(db)))).toBe(MIGRATIONS.length + 1);
    expect(count(db, 'session_messages')).toBe(1);
    expect(count(db, 'session_goals')).toBe(1);
    expect(count(db, 'runs')).toBe(1);
    // On again afterwards: the references still cascade.
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    db.prepare(`DELETE FROM sessions WHERE key = 'agent:main:w'`).run();
    expect(count(db, 'session_messages')).toBe(0);
    db.close();
  });

  it('a migration that leaves a dangling reference aborts: nothing of it is applied, the version stays', () => {
    const db = openWithSession();
    const before = db.pragma('user_version', { simple: true });
    const bad = next(`
      CREATE TABLE marker (x INTEGER) STRICT;
      INSERT INTO marker VALUES (1);
      INSERT INTO session_goals VALUES ('agent:main:nobody', 'orphan', 'active', 5);
      DELETE FROM session_messages;`);
    expect(() => migrate(db, bad)).toThrow(MigrationForeignKeyError);
    expect(() => migrate(db, bad)).toThrow(
      `Upgrading the state database to version ${MIGRATIONS.length + 1} would leave 1 row(s) pointing at nothing (session_goals row`,
    );
    expect(db.pragma('user_version', { simple: true })).toBe(before);
    expect(db.prepare(`SELECT name FROM sqlite_master WHERE name = 'marker'`).all()).toEqual([]);
    expect(count(db, 'session_messages')).toBe(1);
    expect(count(db, 'session_goals')).toBe(1);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    db.close();
  });

  it('a database that was opened without foreign keys is left so (the runner restores what it found)', () => {
    const db = openWithSession();
    db.pragma('foreign_keys = OFF');
    expect(migrateTo(db, next('CREATE TABLE marker (x INTEGER) STRICT;'), MIGRATIONS.length + 1)).toBe(
      MIGRATIONS.length + 1,
    );
    expect(db.pragma('foreign_keys', { simple: true })).toBe(0);
    db.close();
  });
});
