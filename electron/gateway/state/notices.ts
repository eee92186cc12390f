// `gateway.notices` (contract): the in-memory queue of a session's system events. Draining
// acknowledges: each session-state entry moves its own target's cursor. A gateway shows and takes
// only the notices of sessions it runs (ownership/); another gateway's session has none here.
import { decodeNoticeContextKey, normalizeSessionKey } from '../../../shared/session-keys';
import type { GatewayEvent, NoticeEntry, NoticeQueue } from '../types';
import type { NoticeQueues } from './notice-queue';
import type { StateCore } from './session-state';

export type Notices = NoticeQueue & { all(): { sessionKey: string; entries: NoticeEntry[] }[] };

export function createNotices(deps: {
  queues: NoticeQueues;
  state: Pick<StateCore, 'acknowledge'>;
  emit: (e: GatewayEvent) => void;
  /** Whether this gateway runs the session (ownership.owns). */
  owns: (sessionKey: string) => boolean;
}): Notices {
  const { queues, owns } = deps;
  return {
    peek(sessionKey) {
      const key = normalizeSessionKey(sessionKey);
      return owns(key) ? queues.peek(key) : [];
    },
    enqueue(sessionKey, entry) {
      if (!entry || typeof entry.text !== 'string') throw new Error('notice entry needs a text');
      const key = normalizeSessionKey(sessionKey);
      return owns(key) && queues.enqueue(key, entry);
    },
    drain(sessionKey) {
      const key = normalizeSessionKey(sessionKey);
      const entries = queues.take(key); // another gateway's session: whatever was left is stale
      if (!owns(key)) return [];
      const targets = entries
        .map((e) => decodeNoticeContextKey(e.contextKey))
        .filter((t): t is string => !!t);
      if (entries.length) deps.emit({ type: 'notice:drained', sessionKey: key, entries });
      // Acknowledge on drain: only session-state entries acknowledge, each its own target.
      if (targets.length) deps.state.acknowledge(key, targets);
      return entries;
    },
    all: () => queues.all(),
  };
}
