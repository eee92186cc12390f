// better-sqlite3 behind the providers' read-only SQLite interface (kit/sqlite.ts), for the
// gateway's own catalog. Statements are prepared once per connection.
import Database from 'better-sqlite3';
import type { SqliteDb, SqliteOpener } from './kit/sqlite';

export const betterSqliteOpener: SqliteOpener = (file): SqliteDb => {
  const db = new Database(file, { readonly: true, fileMustExist: true });
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
