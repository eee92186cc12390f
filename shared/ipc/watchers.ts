// Watchers: cursors and the notices they get (queued, delivered, reconciled).
// Declarations only; shared/ipc/types.ts re-exports every domain file.
import type { CursorPositions } from '../domain';

export interface CursorRow extends CursorPositions {
  watcher: string;
  target: string;
  targetVersion: number;
  pending: boolean;
  noticeText?: string;
  updatedAt: number;
}

/** A notice a watcher's turn read (drained), and the watcher's next session_status on its target. */
export interface NoticeDelivery {
  id: number;
  watcher: string;
  target: string;
  text: string;
  /** The version the notice told the watcher to reconcile from. */
  changesSince: number;
  drainedAt: number;
  /** The watcher's transcript message after which its turn read the notice (0: before any). */
  afterMessageId: number;
  /** The watcher's next session_status call on the target: the version it returned, and when. */
  reconciled?: { version: number; changesSince?: number; at: number };
}

/** A notice still queued for its watcher (not read yet). */
export interface PendingNotice {
  id: string;
  watcher: string;
  target: string;
  text: string;
}

export interface NoticeHistory {
  pending: PendingNotice[];
  /** Newest first. */
  delivered: NoticeDelivery[];
  hasMore: boolean;
}

export interface WatchersView {
  sessionKey: string;
  stateVersion: number;
  watchedBy: CursorRow[];
  watching: CursorRow[];
}
