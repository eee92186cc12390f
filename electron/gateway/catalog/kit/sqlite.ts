// The small read-only SQLite interface a provider queries (OpenCode's database). The gateway
// hands in better-sqlite3 (catalog/sqlite.ts); a headless node without native modules can hand
// in node:sqlite. Statements are plain SQL with positional parameters.

export type SqlValue = string | number | bigint | null;
export type SqlRow = Record<string, unknown>;

export interface SqliteDb {
  all(sql: string, ...params: SqlValue[]): SqlRow[];
  get(sql: string, ...params: SqlValue[]): SqlRow | undefined;
  close(): void;
}

/** Opens an existing database file read-only (throws when it cannot). */
export type SqliteOpener = (file: string) => SqliteDb;
