// The history of notices (issue 17.3): each notice a watcher's turn read (drained), where in its
// transcript that happened, and the watcher's next session_status call on the notice's target
// (the version it returned, and when) — taken from the watcher's actual tool call. Notices are
// drained within a second, so this is how the core's work stays visible. Table
// `notice_deliveries` (migration 015), bounded to the newest MAX_DELIVERIES rows.
import { decodeNoticeContextKey } from '../../../shared/session-keys';
import type { NoticeDelivery } from '../../../shared/ipc/types';
import type { Db } from '../db/open';
import type { GatewayEvent, NoticeEntry } from '../types';

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

/** The `changesSince N` a notice text names (the spec's byte-stable line). */
export function noticeChangesSince(text: string): number | undefined {
  const m = /changesSince (\d+)\.$/.exec(text);
  const n = m ? Number(m[1]) : NaN;
  return Number.isSafeInteger(n) ? n : undefined;
}

export type NoticeHistoryStore = ReturnType<typeof createNoticeHistory>;

export function createNoticeHistory(deps: {
  db: Db;
  now: () => number;
  emit: (e: GatewayEvent) => void;
  /** The newest message id of a session's transcript (0 when empty). */
  lastMessageId(sessionKey: string): number;
}) {
  const { db } = deps;
  const s = {
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

  const drained = db.transaction((watcher: string, entries: NoticeEntry[]): NoticeDelivery[] => {
    const out: NoticeDelivery[] = [];
    const after = deps.lastMessageId(watcher);
    for (const entry of entries) {
      const target = decodeNoticeContextKey(entry.contextKey);
      const since = noticeChangesSince(entry.text);
      if (target === undefined || since === undefined) continue; // not a session-state notice
      const id = Number(s.insert.run(watcher, target, entry.text, since, deps.now(), after).lastInsertRowid);
      if (id > MAX_DELIVERIES) s.trim.run(id - MAX_DELIVERIES);
      out.push(toDelivery(s.byId.get(id)!));
    }
    return out;
  });

  const reconciled = db.transaction(
    (watcher: string, target: string, version: number, changesSince: number | undefined) => {
      const at = deps.now();
      return s.open.all(watcher, target).map((r) => {
        s.reconcile.run(version, changesSince ?? null, at, r.id);
        return toDelivery(s.byId.get(r.id)!);
      });
    },
  );

  return {
    /** A watcher's turn read these queue entries (the `notice:drained` event). */
    drained(watcher: string, entries: NoticeEntry[]): void {
      for (const delivery of drained(watcher, entries)) deps.emit({ type: 'notice:delivered', delivery });
    },
    /** The watcher called session_status on `target`: the first call after a notice reconciles it. */
    statusCalled(watcher: string, target: string, version: number, changesSince: number | undefined): void {
      for (const delivery of reconciled(watcher, target, version, changesSince))
        deps.emit({ type: 'notice:reconciled', delivery });
    },
    /** Newest first. */
    page(opts: { beforeId?: number; limit: number }): { delivered: NoticeDelivery[]; hasMore: boolean } {
      const rows = s.page.all(opts.beforeId ?? Number.MAX_SAFE_INTEGER, opts.limit + 1);
      return { delivered: rows.slice(0, opts.limit).map(toDelivery), hasMore: rows.length > opts.limit };
    },
    /** The notices a watcher's turns read after a message in [fromId, toId]. */
    forTranscript(watcher: string, fromId: number, toId: number): NoticeDelivery[] {
      return s.forTranscript.all(watcher, fromId, toId).map(toDelivery);
    },
    forgetWatcher: (watcher: string) => void s.removeWatcher.run(watcher),
  };
}
