// Inbox dismissals: which inbox items the person has put away. In SQLite (table
// `ui_inbox_dismissals`, migration 004) when the table exists, otherwise in memory.
import type Database from 'better-sqlite3';

export interface DismissalStore {
  has(id: string): boolean;
  add(id: string, at: number): void;
}

export const DISMISSALS_TABLE = 'ui_inbox_dismissals';
/** Oldest dismissals beyond this many are forgotten (their items are long gone). */
export const MAX_DISMISSALS = 10_000;

export function createMemoryDismissalStore(): DismissalStore {
  const ids = new Map<string, number>();
  return {
    has: (id) => ids.has(id),
    add(id, at) {
      ids.set(id, at);
      if (ids.size > MAX_DISMISSALS) {
        const oldest = ids.keys().next().value;
        if (oldest !== undefined) ids.delete(oldest);
      }
    },
  };
}

export function hasDismissalsTable(db: Database.Database): boolean {
  const row = db
    .prepare(`SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = ?`)
    .get(DISMISSALS_TABLE);
  return row !== undefined;
}

export function createSqliteDismissalStore(db: Database.Database): DismissalStore {
  const hasStmt = db.prepare(`SELECT 1 AS x FROM ${DISMISSALS_TABLE} WHERE item_id = ?`);
  const addStmt = db.prepare(
    `INSERT INTO ${DISMISSALS_TABLE} (item_id, dismissed_at) VALUES (?, ?) ON CONFLICT(item_id) DO NOTHING`,
  );
  const trimStmt = db.prepare(
    `DELETE FROM ${DISMISSALS_TABLE} WHERE item_id IN (SELECT item_id FROM ${DISMISSALS_TABLE}
       ORDER BY dismissed_at DESC LIMIT -1 OFFSET ${MAX_DISMISSALS})`,
  );
  const add = db.transaction((id: string, at: number) => {
    addStmt.run(id, at);
    trimStmt.run();
  });
  return {
    has: (id) => hasStmt.get(id) !== undefined,
    add: (id, at) => add(id, at),
  };
}

/** SQLite when migration 004 has run on `db`, memory otherwise. */
export function createDismissalStore(db?: Database.Database): DismissalStore {
  return db && hasDismissalsTable(db) ? createSqliteDismissalStore(db) : createMemoryDismissalStore();
}
