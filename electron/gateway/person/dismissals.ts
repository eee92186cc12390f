// Inbox dismissals: which inbox items the person has put away. In SQLite (table
// `ui_inbox_dismissals`, migration 004) when the table exists, otherwise in memory.
import type { Db } from '../db/open';
import { dismissalRows, DISMISSALS_TABLE, hasTable, MAX_DISMISSALS } from './repository';

export { DISMISSALS_TABLE, MAX_DISMISSALS } from './repository';

export interface DismissalStore {
  has(id: string): boolean;
  add(id: string, at: number): void;
}

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

export function hasDismissalsTable(db: Db): boolean {
  return hasTable(db, DISMISSALS_TABLE);
}

export function createSqliteDismissalStore(db: Db): DismissalStore {
  const rows = dismissalRows(db);
  return { has: rows.has, add: (id, at) => rows.add(id, at) };
}

/** SQLite when migration 004 has run on `db`, memory otherwise. */
export function createDismissalStore(db?: Db): DismissalStore {
  return db && hasDismissalsTable(db) ? createSqliteDismissalStore(db) : createMemoryDismissalStore();
}
