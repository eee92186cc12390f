// The person domain's SQL: tables `ui_inbox_dismissals` (migration 004), `ui_preferences` (006)
// and `ui_session_seen` (016). The stores beside this file say what the rows mean; a database
// without a table (an older file opened read-only by a tool) gets the memory store instead.
import type { Db } from '../db/open';

export const DISMISSALS_TABLE = 'ui_inbox_dismissals';
/** Oldest dismissals beyond this many are forgotten (their items are long gone). */
export const MAX_DISMISSALS = 10_000;

export function hasTable(db: Db, name: string): boolean {
  return (
    db.prepare(`SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name) !== undefined
  );
}

export function dismissalRows(db: Db) {
  const has = db.prepare(`SELECT 1 AS x FROM ${DISMISSALS_TABLE} WHERE item_id = ?`);
  const add = db.prepare(
    `INSERT INTO ${DISMISSALS_TABLE} (item_id, dismissed_at) VALUES (?, ?) ON CONFLICT(item_id) DO NOTHING`,
  );
  const trim = db.prepare(
    `DELETE FROM ${DISMISSALS_TABLE} WHERE item_id IN (SELECT item_id FROM ${DISMISSALS_TABLE}
       ORDER BY dismissed_at DESC LIMIT -1 OFFSET ${MAX_DISMISSALS})`,
  );
  return {
    has: (id: string): boolean => has.get(id) !== undefined,
    /** Adds one and forgets the oldest beyond MAX_DISMISSALS, in one transaction. */
    add: db.transaction((id: string, at: number) => {
      add.run(id, at);
      trim.run();
    }),
  };
}

export function preferenceRows(db: Db) {
  const all = db.prepare<[], { name: string; value: string }>(`SELECT name, value FROM ui_preferences`);
  const put = db.prepare(
    `INSERT INTO ui_preferences (name, value, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  );
  return {
    all: () => all.all(),
    put: (name: string, value: string, at: number): void => void put.run(name, value, at),
    /**
     * Runs `change` in an IMMEDIATE transaction: it reads before it writes, and a deferred
     * transaction whose snapshot another connection has moved past fails at its first write
     * (SQLITE_BUSY) instead of waiting.
     */
    immediate: <T>(change: () => T): T => db.transaction(change).immediate(),
  };
}

export function seenRows(db: Db) {
  const s = {
    all: db.prepare<[], { session_key: string; seen_at: number }>(
      `SELECT session_key, seen_at FROM ui_session_seen`,
    ),
    put: db.prepare(
      `INSERT INTO ui_session_seen (session_key, seen_at) VALUES (?, ?)
       ON CONFLICT (session_key) DO UPDATE SET seen_at = max(seen_at, excluded.seen_at)`,
    ),
    remove: db.prepare(`DELETE FROM ui_session_seen WHERE session_key = ?`),
  };
  return {
    all: () => s.all.all(),
    put: (key: string, at: number): void => void s.put.run(key, at),
    remove: (key: string): void => void s.remove.run(key),
  };
}
