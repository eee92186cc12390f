// When the person last opened each session (table `ui_session_seen`, migration 016): a finished
// run is `done_unseen` until then (runtime/status.ts derives it).
import type { Db } from '../db/open';
import { seenRows } from './repository';

export interface SeenStore {
  /** Every session's time, read once (a snapshot of 10,000 sessions must not query per session). */
  all(): Map<string, number>;
  /** Never moves back. */
  put(sessionKey: string, at: number): void;
  remove(sessionKey: string): void;
}

export function createSeenStore(db: Db): SeenStore {
  const rows = seenRows(db);
  return {
    all: () => new Map(rows.all().map((r) => [r.session_key, r.seen_at])),
    put: rows.put,
    remove: rows.remove,
  };
}
