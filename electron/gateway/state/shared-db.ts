// Several gateways may share one state database (two app instances on one data folder, a script
// using createGateway). Another connection's commits show up in PRAGMA data_version; when it moves,
// the notify-eligible events appended since the last sequence seen here are read, and every pending
// cursor on their targets whose watcher this gateway runs gets its notice here (the gateway that
// committed queues none for a watcher it does not run). Notices derive from the durable cursors, so
// a re-delivery of something already queued is dropped by the queue's dedupe.
import { NOTIFY_KINDS } from '../../../shared/domain';
import type { Db } from '../db/open';
import { dataVersionOf, sharedLogReads } from './repo';

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
  const reads = sharedLogReads(db, [...NOTIFY_KINDS]);
  const dataVersionNow = dataVersionOf(db);
  let dataVersion = dataVersionNow();
  let lastSeq = reads.maxSequence();

  return {
    /** Delivers what other connections committed since the last poll; returns the notices found. */
    poll(): number {
      const v = dataVersionNow();
      if (v === dataVersion) return 0;
      dataVersion = v;
      // The high-water mark is read first and the scan stops at it: an event another gateway
      // commits during the scan (writers commit in sequence order) is left for the next poll
      // instead of being passed over by a mark read after it.
      const top = reads.maxSequence();
      const notices: PendingNoticeRef[] = [];
      for (const target of reads.targetsBetween(lastSeq, top)) {
        for (const c of reads.pendingOn(target)) {
          if (!runsHere(c.watcher_key)) continue;
          notices.push({ watcher: c.watcher_key, target, changesSince: c.last_seen });
        }
      }
      lastSeq = Math.max(lastSeq, top);
      deliver(notices);
      return notices.length;
    },
  };
}
