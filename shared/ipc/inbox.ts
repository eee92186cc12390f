// The inbox: what needs the person besides permission questions.
// Declarations only; shared/ipc/types.ts re-exports every domain file.
import type { CatalogProvider } from './catalog';
import type { UpstreamAlert } from './sessions';
import type { WorktreeOverlapItem } from './worktrees';

/**
 * What needs the person, besides permission requests (their own list): failed runs,
 * upstream_missing alerts, worktree overlaps and (unless turned off) finished runs not seen yet. Pending notices are for watchers, not the person: see NoticeHistory.
 */
export type InboxItem =
  | {
      id: string;
      type: 'failed';
      sessionKey: string;
      runId: string;
      outcome: 'error' | 'timeout';
      reason: string;
      endedAt: number;
      /** A native session can run its turn again (retry); ACP and adopted sessions cannot. */
      retryable: boolean;
    }
  | {
      id: string;
      type: 'upstream_missing';
      sessionKey: string;
      alert: UpstreamAlert;
      /** For re-adopting: parsed from the adopted session key. */
      provider?: CatalogProvider;
      threadId?: string;
      /** The paired node it was on (NodeInfo.id); absent: this machine. */
      hostId?: string;
      /** What vanished: the tool's transcript file (or database) as adopted. */
      source?: string;
    }
  | {
      id: string;
      /** A run finished since the person last opened the session (a category they can turn off). */
      type: 'done_unseen';
      sessionKey: string;
      runId: string;
      endedAt: number;
    }
  | WorktreeOverlapItem;
