// The state database: pragmas, STRICT tables and the forward-only migration runner.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway } from '../../electron/gateway/index';
import { migrate, NewerDatabaseError, type Migration } from '../../electron/gateway/db/migrate';
import { MIGRATIONS } from '../../electron/gateway/db/migrations';
import { DB_FILE, openDatabase } from '../../electron/gateway/db/open';
import { tempDir } from '../helpers/temp';
import type { RecordInput } from '../../electron/gateway/types';
import { collectingLogger, openHarness, type Harness } from '../state/helpers';

const dirs: string[] = [];
const harnesses: Harness[] = [];
afterEach(() => {
  for (const h of harnesses.splice(0)) h.dispose();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function harness(): Harness {
  const h = openHarness();
  harnesses.push(h);
  return h;
}

describe('pragmas and tables', () => {
  it('opens one WAL database file in the data dir, creating the dir, with foreign keys on', () => {
    const parent = tempDir();
    dirs.push(parent);
    const dataDir = path.join(parent, 'nested', 'data');
    const gw = createGateway({ dataDir, autoStart: false, now: () => 0, logger: collectingLogger() });
    try {
      expect(fs.existsSync(path.join(dataDir, DB_FILE))).toBe(true);
      expect(gw.db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(gw.db.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(gw.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    } finally {
      gw.close();
    }
  });

  it('every table is STRICT', () => {
    const { gw } = harness();
    const tables = gw.db
      .prepare(
        "SELECT name, strict FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all() as { name: string; strict: number }[];
    const names = tables.map((t) => t.name);
    for (const core of ['sessions', 'session_state_events', 'session_state_heads', 'session_watch_cursors']) {
      expect(names).toContain(core);
    }
    expect(tables.filter((t) => t.strict !== 1)).toEqual([]);
  });

  it('STRICT rejects a mistyped column', () => {
    const { gw } = harness();
    expect(() =>
      gw.db
        .prepare(
          `INSERT INTO session_state_events (session_key, agent_id, kind, actor_type, occurred_at, summary) VALUES ('k', 'main', 'compacted', 'system', 'yesterday', 's')`,
        )
        .run(),
    ).toThrow(/cannot store TEXT value in INTEGER column/);
  });

  it('kinds and actor types are checked once, in code, from shared/domain.ts; the schema names no enum', () => {
    const { gw, logger } = harness();
    const bad = [
      { kind: 'message', actorType: 'human' },
      { kind: 'compacted', actorType: 'robot' },
    ];
    for (const b of bad) {
      const input = { sessionKey: 'agent:main:k', summary: 's', ...b } as unknown as RecordInput;
      expect(gw.state.record(input)).toBeUndefined();
    }
    expect(logger.lines.map((l) => l.fields?.error)).toEqual([
      'unknown event kind: message',
      'unknown actor type: robot',
    ]);
    expect(gw.state.version('agent:main:k')).toBe(0);
    // Adding a kind, provider, role or status never means rebuilding a table (migration 009).
    const schema = (
      gw.db.prepare(`SELECT group_concat(sql, ';') AS s FROM sqlite_master`).get() as { s: string }
    ).s;
    expect(schema).not.toMatch(/CHECK \(\w+ IN \('/);
  });
});

describe('the migration runner', () => {
  it('refuses a database written by a newer version, and leaves it untouched', () => {
    const h = harness();
    const dir = h.dir;
    h.gw.close();
    const raw = new Database(path.join(dir, DB_FILE));
    raw.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    raw.close();
    expect(() =>
      createGateway({ dataDir: dir, autoStart: false, now: () => 0, logger: collectingLogger() }),
    ).toThrow(NewerDatabaseError);
    expect(() => openDatabase(dir)).toThrow(
      `The state database was written by a newer Sightline (schema version ${MIGRATIONS.length + 1}; this build supports up to ${MIGRATIONS.length}). Refusing to open it.`,
    );
    const check = new Database(path.join(dir, DB_FILE), { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length + 1);
    check.close();
    // Let dispose() close something: reopen at the supported version.
    const fix = new Database(path.join(dir, DB_FILE));
    fix.pragma(`user_version = ${MIGRATIONS.length}`);
    fix.close();
    h.restart();
  });

  it('numbers migrations 1..n without gaps', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    const db = new Database(':memory:');
    try {
      const gap: Migration[] = [
        { version: 1, name: 'a', up: 'CREATE TABLE a (x INTEGER) STRICT;' },
        { version: 3, name: 'c', up: 'CREATE TABLE c (x INTEGER) STRICT;' },
      ];
      expect(() => migrate(db, gap)).toThrow('Migrations must be numbered 1..n without gaps (found 3)');
      expect(db.pragma('user_version', { simple: true })).toBe(0);
    } finally {
      db.close();
    }
  });

  it('applies pending steps in one transaction: a failing step keeps the previous version', () => {
    const db = new Database(':memory:');
    try {
      const one: Migration = { version: 1, name: 'a', up: 'CREATE TABLE a (x INTEGER) STRICT;' };
      expect(migrate(db, [one])).toBe(1);
      expect(migrate(db, [one])).toBe(1); // no-op
      const broken: Migration[] = [
        one,
        { version: 2, name: 'b', up: 'CREATE TABLE b (x INTEGER) STRICT;' },
        { version: 3, name: 'c', up: 'CREATE TABLE c (x INTEGER) STRICT; THIS IS NOT SQL;' },
      ];
      expect(() => migrate(db, broken)).toThrow();
      expect(db.pragma('user_version', { simple: true })).toBe(1);
      expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all()).toEqual([
        { name: 'a' },
      ]);
    } finally {
      db.close();
    }
  });

  it('re-opening an up-to-date database changes nothing', () => {
    const h = harness();
    h.gw.state.record({
      sessionKey: 'agent:main:main',
      kind: 'compacted',
      actorType: 'system',
      summary: 'session compacted',
    });
    const gw = h.restart();
    expect(gw.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(gw.state.version('agent:main:main')).toBe(1);
  });
});
