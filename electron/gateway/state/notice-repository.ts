// The rows of `notice_deliveries` (migration 015): the notice history's SQL, bounded to the newest
// MAX_DELIVERIES rows. What a row means is notice-history.ts's to say.
import type { NoticeDelivery } from '../../../shared/ipc/types';
import type { Db } from '../db/open';

export const MAX_DELIVERIES = 10_000;

interface Row {
  id: number;
  watcher_key: string;
  target_key: string;
  text: string;
  changes_since: number;
  drained_at: number;
  after_message_id: number;
  reconciled_version: number | null;
  reconciled_changes_since: number | null;
  reconciled_at: number | null;
}

function toDelivery(r: Row): NoticeDelivery {
  return {
    id: r.id,
    watcher: r.watcher_key,
    target: r.target_key,
    text: r.text,
    changesSince: r.changes_since,
    drainedAt: r.drained_at,
    afterMessageId: r.after_message_id,
    ...(r.reconciled_at !== null && r.reconciled_version !== null
      ? {
          reconciled: {
            version: r.reconciled_version,
            at: r.reconciled_at,
            ...(r.reconciled_changes_since !== null ? { changesSince: r.reconciled_changes_since } : {}),
          },
        }
      : {}),
  };
}

function statements(db: Db) {
  return {
    insert: db.prepare(
      `INSERT INTO notice_deliveries (watcher_key, target_key, text, changes_since, drained_at, after_message_id)
       VALUES (?, ?, ?, ?, ?, ?)`,
    ),
    byId: db.prepare<[number], Row>(`SELECT * FROM notice_deliveries WHERE id = ?`),
    open: db.prepare<[string, string], Row>(
      `SELECT * FROM notice_deliveries WHERE watcher_key = ? AND target_key = ? AND reconciled_at IS NULL`,
    ),
    reconcile: db.prepare(
      `UPDATE notice_deliveries SET reconciled_version = ?, reconciled_changes_since = ?, reconciled_at = ?
       WHERE id = ?`,
    ),
    page: db.prepare<[number, number], Row>(
      `SELECT * FROM notice_deliveries WHERE id < ? ORDER BY id DESC LIMIT ?`,
    ),
    forTranscript: db.prepare<[string, number, number], Row>(
      `SELECT * FROM notice_deliveries WHERE watcher_key = ? AND after_message_id BETWEEN ? AND ?
       ORDER BY after_message_id, id`,
    ),
    trim: db.prepare(`DELETE FROM notice_deliveries WHERE id <= ?`),
    removeWatcher: db.prepare(`DELETE FROM notice_deliveries WHERE watcher_key = ?`),
  };
}

/** One notice a watcher's turn read, as it is written. */
export interface DrainedNotice {
  target: string;
  text: string;
  changesSince: number;
}

export type NoticeRepository = ReturnType<typeof createNoticeRepository>;

export function createNoticeRepository(db: Db) {
  const s = statements(db);
  return {
    /** Writes the notices one drain read (one transaction), trimming the oldest beyond the bound. */
    insertDrained: db.transaction(
      (watcher: string, notices: DrainedNotice[], at: number, afterMessageId: number): NoticeDelivery[] =>
        notices.map((n) => {
          const id = Number(
            s.insert.run(watcher, n.target, n.text, n.changesSince, at, afterMessageId).lastInsertRowid,
          );
          if (id > MAX_DELIVERIES) s.trim.run(id - MAX_DELIVERIES);
          return toDelivery(s.byId.get(id)!);
        }),
    ),
    /** Marks every open notice of `watcher` on `target` reconciled (one transaction). */
    reconcileOpen: db.transaction(
      (watcher: string, target: string, version: number, changesSince: number | undefined, at: number) =>
        s.open.all(watcher, target).map((r) => {
          s.reconcile.run(version, changesSince ?? null, at, r.id);
          return toDelivery(s.byId.get(r.id)!);
        }),
    ),
    /** Newest first, one more than `limit` (so the caller knows whether there are more). */
    page: (beforeId: number, limit: number): NoticeDelivery[] => s.page.all(beforeId, limit).map(toDelivery),
    forTranscript: (watcher: string, fromId: number, toId: number): NoticeDelivery[] =>
      s.forTranscript.all(watcher, fromId, toId).map(toDelivery),
    removeWatcher: (watcher: string): void => void s.removeWatcher.run(watcher),
  };
}
