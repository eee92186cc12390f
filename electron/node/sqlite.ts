// OpenCode's database on a node: read with Node's built-in `node:sqlite` (Node ≥ 22.5), never a
// native module, so the node stays one JavaScript file. Where this Node has no `node:sqlite`, the
// node says plainly that it cannot serve OpenCode.
import type { SqliteDb, SqliteOpener, SqlValue } from '../gateway/catalog/kit/sqlite';

interface Statement {
  all(...params: SqlValue[]): Record<string, unknown>[];
  get(...params: SqlValue[]): Record<string, unknown> | undefined;
}
interface DatabaseSync {
  prepare(sql: string): Statement;
  exec(sql: string): void;
  close(): void;
}
type SqliteModule = { DatabaseSync: new (file: string, opts?: Record<string, unknown>) => DatabaseSync };

export type NodeSqlite = { ok: true; open: SqliteOpener } | { ok: false; reason: string };

export async function loadNodeSqlite(version = process.versions.node): Promise<NodeSqlite> {
  let mod: SqliteModule;
  try {
    // A variable, so neither TypeScript (Node 20 types) nor the bundler resolves it.
    const name = 'node:sqlite';
    // eslint-disable-next-line layers/allowed-imports -- a Node built-in, which a node may import
    mod = (await import(name)) as SqliteModule;
  } catch {
    return {
      ok: false,
      reason: `this node cannot serve OpenCode: reading its database needs node:sqlite (Node 22.5 or newer), and this node runs Node ${version}`,
    };
  }
  const open: SqliteOpener = (file): SqliteDb => {
    // readOnly exists from Node 22.12; query_only keeps older 22.x read-only too.
    const db = new mod.DatabaseSync(file, { readOnly: true });
    db.exec('PRAGMA query_only = 1');
    db.exec('PRAGMA busy_timeout = 1000');
    const stmts = new Map<string, Statement>();
    const stmt = (sql: string) => {
      let s = stmts.get(sql);
      if (!s) stmts.set(sql, (s = db.prepare(sql)));
      return s;
    };
    return {
      all: (sql, ...params) => stmt(sql).all(...params),
      get: (sql, ...params) => stmt(sql).get(...params),
      close: () => db.close(),
    };
  };
  return { ok: true, open };
}
