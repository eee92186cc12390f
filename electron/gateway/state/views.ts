// What the UI reads of the state core: the timeline (the signal log newest first, filtered) and
// the cursors on and held by a session, with the notice each one has queued.
import type { StateEventRow } from '../../../shared/domain';
import { noticeContextKey, parseSessionKey } from '../../../shared/session-keys';
import type { CursorRow } from '../types';
import type { NoticeQueues } from './notice-queue';
import { resolveKey } from './record-input';
import { toStateEventRow, type CursorDbRow, type StateRepo } from './repo';

export interface TimelineOptions {
  agentId?: string;
  beforeSequence?: number;
  limit?: number;
  kinds?: string[];
  actorTypes?: string[];
}

export function createStateViews(repo: StateRepo, queues: NoticeQueues) {
  const toCursorRow = (c: CursorDbRow): CursorRow => {
    const entry = queues.peek(c.watcher_key).find((e) => e.contextKey === noticeContextKey(c.target_key));
    const targetVersion =
      repo.head(c.target_key, parseSessionKey(c.target_key).agentId ?? '')?.last_sequence ?? 0;
    return {
      watcher: c.watcher_key,
      target: c.target_key,
      lastSeen: c.last_seen,
      notified: c.notified,
      material: c.material,
      targetVersion,
      pending: c.material > c.last_seen,
      updatedAt: c.updated_at,
      ...(entry ? { noticeText: entry.text } : {}),
    };
  };

  return {
    timeline(sessionKey: string, opts: TimelineOptions = {}): StateEventRow[] {
      const k = resolveKey(sessionKey, opts.agentId);
      const limit = Math.min(500, Math.max(1, Math.floor(opts.limit ?? 200)));
      const before = opts.beforeSequence ?? Number.MAX_SAFE_INTEGER;
      const kinds = opts.kinds?.length ? new Set(opts.kinds) : undefined;
      const actors = opts.actorTypes?.length ? new Set(opts.actorTypes) : undefined;
      if (!kinds && !actors) return repo.eventsBefore(k.key, k.agentId, before, limit).map(toStateEventRow);
      // Filtered pages walk the index in chunks; the log is bounded to 50,000 rows.
      const out: StateEventRow[] = [];
      let cursor = before;
      for (;;) {
        const chunk = repo.eventsBefore(k.key, k.agentId, cursor, 1000);
        for (const row of chunk) {
          if ((!kinds || kinds.has(row.kind)) && (!actors || actors.has(row.actor_type)))
            out.push(toStateEventRow(row));
          if (out.length >= limit) return out;
        }
        if (chunk.length < 1000) return out;
        cursor = chunk[chunk.length - 1]!.sequence;
      }
    },

    watchers(sessionKey: string): { watchedBy: CursorRow[]; watching: CursorRow[] } {
      const key = parseSessionKey(sessionKey).key;
      return {
        watchedBy: repo.cursorsOnTarget(key).map(toCursorRow),
        watching: repo.cursorsHeldBy(key).map(toCursorRow),
      };
    },
  };
}
