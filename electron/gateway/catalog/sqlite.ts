// The gateway's SQLite (db/sqlite.ts, with the host's native binding) behind the providers'
// read-only query interface (kit/sqlite.ts). Statements are prepared once per connection.
import type Database from 'better-sqlite3';
import { openSqlite } from '../db/sqlite';
import type { SqliteDb, SqliteOpener } from './kit/sqlite';

export const betterSqliteOpener: SqliteOpener = (file): SqliteDb => {
  const db = openSqlite(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 1000');
  const stmts = new Map<string, Database.Statement>();
  const stmt = (sql: string) => {
    let s = stmts.get(sql);
    if (!s) stmts.set(sql, (s = db.prepare(sql)));
    return s;
  };
  return {
    all: (sql, ...params) => stmt(sql).all(...params) as Record<string, unknown>[],
    get: (sql, ...params) => stmt(sql).get(...params) as Record<string, unknown> | undefined,
    close: () => db.close(),
  };
};
