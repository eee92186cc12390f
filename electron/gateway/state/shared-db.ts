// Several gateways may share one state database (two app instances on one data folder, a script
// using createGateway). Another connection's commits show up in PRAGMA data_version; when it moves,
// the notify-eligible events appended since the last sequence seen here are read, and every pending
// cursor on their targets whose watcher this gateway runs gets its notice here (the gateway that
// committed queues none for a watcher it does not run). Notices derive from the durable cursors, so
// a re-delivery of something already queued is dropped by the queue's dedupe.
import { NOTIFY_KINDS } from '../../../shared/domain';
import type { Db } from '../db/open';

export interface PendingNoticeRef {
  watcher: string;
  target: string;
  changesSince: number;
}

export function createSharedDbPoller(
  db: Db,
  deliver: (notices: PendingNoticeRef[]) => void,
  runsHere: (watcher: string) => boolean,
) {
  const kinds = [...NOTIFY_KINDS];
  const s = {
    maxSeq: db.prepare<[], { m: number | null }>(`SELECT max(sequence) AS m FROM session_state_events`),
    targets: db.prepare<unknown[], { session_key: string }>(
      `SELECT DISTINCT session_key FROM session_state_events NOT INDEXED
       WHERE sequence > ? AND sequence <= ? AND kind IN (${kinds.map(() => '?').join(', ')})`,
    ),
    pendingOn: db.prepare<[string], { watcher_key: string; last_seen: number }>(
      `SELECT watcher_key, last_seen FROM session_watch_cursors WHERE target_key = ? AND material > last_seen`,
    ),
  };
  let dataVersion = db.pragma('data_version', { simple: true }) as number;
  let lastSeq = s.maxSeq.get()?.m ?? 0;

  return {
    /** Delivers what other connections committed since the last poll; returns the notices found. */
    poll(): number {
      const v = db.pragma('data_version', { simple: true }) as number;
      if (v === dataVersion) return 0;
      dataVersion = v;
      // The high-water mark is read first and the scan stops at it: an event another gateway
      // commits during the scan (writers commit in sequence order) is left for the next poll
      // instead of being passed over by a mark read after it.
      const top = s.maxSeq.get()?.m ?? 0;
      const notices: PendingNoticeRef[] = [];
      for (const t of s.targets.all(lastSeq, top, ...kinds)) {
        for (const c of s.pendingOn.all(t.session_key)) {
          if (!runsHere(c.watcher_key)) continue;
          notices.push({ watcher: c.watcher_key, target: t.session_key, changesSince: c.last_seen });
        }
      }
      lastSeq = Math.max(lastSeq, top);
      deliver(notices);
      return notices.length;
    },
  };
}
