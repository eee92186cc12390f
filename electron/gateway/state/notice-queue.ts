// The per-session in-memory system-event queue. One pending line per (text, context key): twenty
// rapid changes to one target become one line in the watcher's prompt.
import type { NoticeEntry } from '../../../shared/domain';

export const NOTICE_QUEUE_LIMIT = 20;

export class NoticeQueues {
  private readonly queues = new Map<string, NoticeEntry[]>();

  constructor(private readonly onQueued: (sessionKey: string, entry: NoticeEntry) => void = () => {}) {}

  /** False when an entry with the same text and context key is already queued. */
  enqueue(sessionKey: string, entry: NoticeEntry): boolean {
    let queue = this.queues.get(sessionKey);
    if (!queue) this.queues.set(sessionKey, (queue = []));
    if (queue.some((e) => e.text === entry.text && e.contextKey === entry.contextKey)) return false;
    const copy: NoticeEntry =
      entry.contextKey === undefined
        ? { text: entry.text }
        : { text: entry.text, contextKey: entry.contextKey };
    queue.push(copy);
    if (queue.length > NOTICE_QUEUE_LIMIT) queue.shift(); // oldest dropped
    this.onQueued(sessionKey, copy);
    return true;
  }

  peek(sessionKey: string): NoticeEntry[] {
    return (this.queues.get(sessionKey) ?? []).map((e) => ({ ...e }));
  }

  /** Removes and returns everything queued for the session. */
  take(sessionKey: string): NoticeEntry[] {
    const queue = this.queues.get(sessionKey) ?? [];
    this.queues.delete(sessionKey);
    return queue;
  }

  clear(sessionKey: string): void {
    this.queues.delete(sessionKey);
  }

  /** Drops every queued entry with this context key, in every session (its target is gone). */
  dropContext(contextKey: string): void {
    for (const [key, queue] of this.queues) {
      const kept = queue.filter((e) => e.contextKey !== contextKey);
      if (kept.length === 0) this.queues.delete(key);
      else if (kept.length !== queue.length) this.queues.set(key, kept);
    }
  }

  all(): { sessionKey: string; entries: NoticeEntry[] }[] {
    return [...this.queues]
      .filter(([, q]) => q.length > 0)
      .map(([sessionKey, q]) => ({ sessionKey, entries: q.map((e) => ({ ...e })) }));
  }

  size(sessionKey: string): number {
    return this.queues.get(sessionKey)?.length ?? 0;
  }
}
