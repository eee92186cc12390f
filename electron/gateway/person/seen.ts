// When the person last opened each session (table `ui_session_seen`, migration 016): a finished
// run is `done_unseen` until then (runtime/status.ts derives it).
import type { Db } from '../db/open';

export interface SeenStore {
  /** Every session's time, read once (a snapshot of 10,000 sessions must not query per session). */
  all(): Map<string, number>;
  /** Never moves back. */
  put(sessionKey: string, at: number): void;
  remove(sessionKey: string): void;
}

export function createSeenStore(db: Db): SeenStore {
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
    all: () => new Map(s.all.all().map((r) => [r.session_key, r.seen_at])),
    put: (key, at) => void s.put.run(key, at),
    remove: (key) => void s.remove.run(key),
  };
}
