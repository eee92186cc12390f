// The one module that loads better-sqlite3 (test/db/sqlite-helper.test.ts pins it): every
// database the app opens (the state database, OpenCode's read-only database, backups) goes
// through openSqlite, which passes the native binding the host chose. Electron main chooses its
// Electron-ABI build at start-up (electron/main/native-binding.ts); under plain Node (tests,
// browser mode) none is set and better-sqlite3 loads its own build from node_modules. The choice
// is process-wide on purpose: one process loads one addon, whoever opens the file.
import Database from 'better-sqlite3';

export type Db = Database.Database;

let binding: string | undefined;

/** Called once by the host before any database is opened; undefined = better-sqlite3's own build. */
export function useNativeBinding(file: string | undefined): void {
  binding = file || undefined;
}

export function currentNativeBinding(): string | undefined {
  return binding;
}

export interface SqliteOptions {
  readonly?: boolean;
  fileMustExist?: boolean;
  /** busy timeout in ms for this connection. */
  timeout?: number;
}

export function openSqlite(file: string, opts: SqliteOptions = {}): Db {
  return new Database(file, { ...opts, ...(binding ? { nativeBinding: binding } : {}) });
}
