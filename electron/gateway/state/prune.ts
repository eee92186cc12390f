// Bounded history: 30 days and 50,000 rows for the whole database. The pruned watermark on each
// head is raised before rows go, so `historyGap` stays exact (never sequence arithmetic).
import type { Db } from '../db/open';

export const RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
export const MAX_EVENT_ROWS = 50_000;
export const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

export interface PruneResult {
  expiredEvents: number;
  cappedEvents: number;
  expiredCursors: number;
}

export function createPruner(db: Db, limits = { retentionMs: RETENTION_MS, maxRows: MAX_EVENT_ROWS }) {
  const s = {
    agedGroups: db.prepare<[number], { session_key: string; agent_id: string; max_seq: number }>(
      // Few rows age out per hour: search them by time, then group (the planner would rather walk
      // the whole per-session index to avoid the sort).
      `SELECT session_key, agent_id, max(sequence) AS max_seq FROM session_state_events INDEXED BY session_state_events_by_time
       WHERE occurred_at < ? GROUP BY session_key, agent_id`,
    ),
    deleteAged: db.prepare(`DELETE FROM session_state_events WHERE occurred_at < ?`),
    count: db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM session_state_events`),
    boundary: db.prepare<[number], { sequence: number }>(
      `SELECT sequence FROM session_state_events WHERE sequence > 0 ORDER BY sequence LIMIT 1 OFFSET ?`,
    ),
    cappedGroups: db.prepare<[number], { session_key: string; agent_id: string; max_seq: number }>(
      `SELECT session_key, agent_id, max(sequence) AS max_seq FROM session_state_events NOT INDEXED
       WHERE sequence < ? GROUP BY session_key, agent_id`,
    ),
    deleteCapped: db.prepare(`DELETE FROM session_state_events WHERE sequence < ?`),
    // UPDATE only: pruning never creates a head, and never lowers a watermark.
    raiseWatermark: db.prepare(
      `UPDATE session_state_heads SET pruned_max_sequence = max(pruned_max_sequence, ?)
       WHERE session_key = ? AND agent_id = ?`,
    ),
    expireCursors: db.prepare(`DELETE FROM session_watch_cursors WHERE updated_at < ?`),
  };

  const raise = (groups: { session_key: string; agent_id: string; max_seq: number }[]) => {
    for (const g of groups) s.raiseWatermark.run(g.max_seq, g.session_key, g.agent_id);
  };

  return db.transaction((now: number): PruneResult => {
    const cutoff = now - limits.retentionMs;
    raise(s.agedGroups.all(cutoff));
    const expiredEvents = s.deleteAged.run(cutoff).changes;
    let cappedEvents = 0;
    const excess = s.count.get()!.n - limits.maxRows;
    if (excess > 0) {
      // The first row that stays: everything with a lower sequence is beyond the cap.
      const keep = s.boundary.get(excess)!.sequence;
      raise(s.cappedGroups.all(keep));
      cappedEvents = s.deleteCapped.run(keep).changes;
    }
    const expiredCursors = s.expireCursors.run(cutoff).changes;
    return { expiredEvents, cappedEvents, expiredCursors };
  });
}
