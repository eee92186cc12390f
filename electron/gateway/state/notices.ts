// `gateway.notices` (contract): the in-memory queue of a session's system events. Draining
// acknowledges: each session-state entry moves its own target's cursor.
import { decodeNoticeContextKey, normalizeSessionKey } from '../../../shared/session-keys';
import type { GatewayEvent, NoticeEntry, NoticeQueue } from '../types';
import type { NoticeQueues } from './notice-queue';
import type { StateCore } from './session-state';

export type Notices = NoticeQueue & { all(): { sessionKey: string; entries: NoticeEntry[] }[] };

export function createNotices(deps: {
  queues: NoticeQueues;
  state: Pick<StateCore, 'acknowledge'>;
  emit: (e: GatewayEvent) => void;
}): Notices {
  const { queues } = deps;
  return {
    peek: (sessionKey) => queues.peek(normalizeSessionKey(sessionKey)),
    enqueue(sessionKey, entry) {
      if (!entry || typeof entry.text !== 'string') throw new Error('notice entry needs a text');
      return queues.enqueue(normalizeSessionKey(sessionKey), entry);
    },
    drain(sessionKey) {
      const key = normalizeSessionKey(sessionKey);
      const entries = queues.take(key);
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
