// Migration 005: the catalog link table loses its CHECK on provider names (providers are
// registered in code). A database at version 4 with links keeps every row and column.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { migrate, migrateTo } from '../../electron/gateway/db/migrate';
import { MIGRATIONS } from '../../electron/gateway/db/migrations';
import { tempDir } from '../helpers/temp';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

it('upgrades a version-4 database with links: same rows, index kept, any registered provider name accepted', () => {
  const dir = tempDir();
  dirs.push(dir);
  const db = new Database(path.join(dir, 'state.db'));
  try {
    expect(migrate(db, MIGRATIONS.slice(0, 4))).toBe(4);
    const insert = db.prepare(
      `INSERT INTO catalog_upstream_links (session_key, provider, thread_id, host_id, source_ref, source_hash, generation,
         marker_offset, marker_inode, marker_json, scan_state, missing_streak, last_scanned_at, created_at, updated_at)
       VALUES (?, ?, 't1', 'h', '{"kind":"file","path":"/x"}', 'abc', 2, 120, '1:2', NULL, '{"at":5}', 1, 7, 1, 8)`,
    );
    insert.run('agent:main:adopted:claude:t1', 'claude');
    expect(() => insert.run('agent:main:adopted:jot:t1', 'jot')).toThrow(/CHECK constraint failed/);
    const before = db.prepare('SELECT * FROM catalog_upstream_links').all();

    // Up to 005 only: 009 then drops links of sessions that do not exist (test/db/upgrade.test.ts).
    expect(migrateTo(db, MIGRATIONS, 5)).toBe(5);
    expect(db.prepare('SELECT * FROM catalog_upstream_links').all()).toEqual(before);
    insert.run('agent:main:adopted:jot:t1', 'jot');
    expect(db.prepare('SELECT count(*) AS n FROM catalog_upstream_links').get()).toEqual({ n: 2 });
    const idx = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'catalog_upstream_links'")
      .all();
    expect(idx).toContainEqual({ name: 'catalog_upstream_links_by_thread' });
  } finally {
    db.close();
  }
});
