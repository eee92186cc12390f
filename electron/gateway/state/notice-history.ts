// The history of notices (issue 17.3): each notice a watcher's turn read (drained), where in its
// transcript that happened, and the watcher's next session_status call on the notice's target
// (the version it returned, and when) — taken from the watcher's actual tool call. Notices are
// drained within a second, so this is how the core's work stays visible. Table
// `notice_deliveries` (migration 015), bounded to the newest MAX_DELIVERIES rows.
import { decodeNoticeContextKey } from '../../../shared/session-keys';
import type { NoticeDelivery } from '../../../shared/ipc/types';
import type { GatewayEvent, NoticeEntry } from '../types';
import type { DrainedNotice, NoticeRepository } from './notice-repository';

export { MAX_DELIVERIES } from './notice-repository';

/** The `changesSince N` a notice text names (the spec's byte-stable line). */
export function noticeChangesSince(text: string): number | undefined {
  const m = /changesSince (\d+)\.$/.exec(text);
  const n = m ? Number(m[1]) : NaN;
  return Number.isSafeInteger(n) ? n : undefined;
}

export type NoticeHistoryStore = ReturnType<typeof createNoticeHistory>;

export function createNoticeHistory(deps: {
  rows: NoticeRepository;
  now: () => number;
  emit: (e: GatewayEvent) => void;
  /** The newest message id of a session's transcript (0 when empty). */
  lastMessageId(sessionKey: string): number;
}) {
  const { rows } = deps;
  return {
    /** A watcher's turn read these queue entries (the `notice:drained` event). */
    drained(watcher: string, entries: NoticeEntry[]): void {
      const notices: DrainedNotice[] = [];
      for (const entry of entries) {
        const target = decodeNoticeContextKey(entry.contextKey);
        const changesSince = noticeChangesSince(entry.text);
        if (target === undefined || changesSince === undefined) continue; // not a session-state notice
        notices.push({ target, text: entry.text, changesSince });
      }
      const written = rows.insertDrained(watcher, notices, deps.now(), deps.lastMessageId(watcher));
      for (const delivery of written) deps.emit({ type: 'notice:delivered', delivery });
    },
    /** The watcher called session_status on `target`: the first call after a notice reconciles it. */
    statusCalled(watcher: string, target: string, version: number, changesSince: number | undefined): void {
      for (const delivery of rows.reconcileOpen(watcher, target, version, changesSince, deps.now()))
        deps.emit({ type: 'notice:reconciled', delivery });
    },
    /** Newest first. */
    page(opts: { beforeId?: number; limit: number }): { delivered: NoticeDelivery[]; hasMore: boolean } {
      const page = rows.page(opts.beforeId ?? Number.MAX_SAFE_INTEGER, opts.limit + 1);
      return { delivered: page.slice(0, opts.limit), hasMore: page.length > opts.limit };
    },
    /** The notices a watcher's turns read after a message in [fromId, toId]. */
    forTranscript: (watcher: string, fromId: number, toId: number): NoticeDelivery[] =>
      rows.forTranscript(watcher, fromId, toId),
    forgetWatcher: (watcher: string) => rows.removeWatcher(watcher),
  };
}
