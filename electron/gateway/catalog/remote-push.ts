// A node's `changed` frames (issue 31, protocol.ts): the node saw its links' files change and asks
// for a check of those links now. Whatever a node sends is hostile until parsed: a frame that is
// not exactly `{type: 'changed', ids, deleted?}` with at most PUSH_IDS link numbers of this
// connection's watch set is refused (each reason logged at most once per LOG_EVERY_MS per
// connection, with a count) and the connection keeps serving. What is accepted is coalesced per connection: the links
// changed since the last event check are one check, and a connection has at most one in flight
// (remote-check.ts runs it after any check already under way on that connection).
import type { NodeConnection } from '../nodes/connection';
import { PUSH_IDS } from '../nodes/protocol';
import type { Logger } from '../types';

/** A refused frame is logged at most this often per connection and reason (the rest are counted). */
export const LOG_EVERY_MS = 10_000;

export interface PushDeps {
  logger: Logger;
  now: () => number;
  /** Whether `id` is a link of this connection's watch set. */
  known(conn: NodeConnection, id: number): boolean;
  /** Whether events are followed now (the catalog runs, file events on). */
  enabled(): boolean;
  /** One event check of these links (true: a deletion among its events). */
  run(hostId: string, conn: NodeConnection, changed: Map<number, boolean>): Promise<void>;
}

interface Queue {
  dirty: Map<number, boolean>;
  running: boolean;
  /** Per reason (a handful of fixed texts): refused since it was last logged, and when that was. */
  refused: Map<string, { count: number; at: number | undefined }>;
}

const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

/** The frame's links, or why it is refused. */
function parse(f: Record<string, unknown>, known: (id: number) => boolean): Map<number, boolean> | string {
  const { ids, deleted } = f;
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > PUSH_IDS || !ids.every(isId))
    return `ids must be 1 to ${PUSH_IDS} link numbers`;
  if (
    deleted !== undefined &&
    (!Array.isArray(deleted) || deleted.length > ids.length || !deleted.every(isId))
  )
    return 'deleted must be link numbers among ids';
  if (Object.keys(f).some((k) => k !== 'type' && k !== 'ids' && k !== 'deleted'))
    return 'a changed frame has only type, ids and deleted';
  const out = new Map<number, boolean>();
  for (const id of ids) {
    if (!known(id)) return 'a link that is not watched on this connection';
    out.set(id, false);
  }
  for (const id of deleted ?? []) {
    if (!out.has(id)) return 'deleted must be link numbers among ids';
    out.set(id, true);
  }
  return out;
}

export function createPushes(deps: PushDeps) {
  const queues = new WeakMap<NodeConnection, Queue>();

  function refuse(hostId: string, q: Queue, reason: string): void {
    let r = q.refused.get(reason);
    if (!r) q.refused.set(reason, (r = { count: 0, at: undefined }));
    r.count++;
    const t = deps.now();
    if (r.at !== undefined && t - r.at < LOG_EVERY_MS) return;
    deps.logger.warn('catalog: refused a changed frame from the node', {
      nodeId: hostId,
      reason,
      refused: r.count,
    });
    r.at = t;
    r.count = 0;
  }

  async function drain(hostId: string, conn: NodeConnection, q: Queue): Promise<void> {
    try {
      while (q.dirty.size > 0 && !conn.closed && deps.enabled()) {
        const changed = new Map(q.dirty);
        q.dirty.clear();
        try {
          await deps.run(hostId, conn, changed);
        } catch (err) {
          deps.logger.warn('catalog: node event check failed', { nodeId: hostId, error: String(err) });
        }
      }
    } finally {
      q.running = false;
      q.dirty.clear();
    }
  }

  return {
    /** One frame of type `changed` from a node's connection. */
    frame(hostId: string, conn: NodeConnection, f: Record<string, unknown>): void {
      let q = queues.get(conn);
      if (!q) queues.set(conn, (q = { dirty: new Map(), running: false, refused: new Map() }));
      if (!deps.enabled()) return;
      const got = parse(f, (id) => deps.known(conn, id));
      if (typeof got === 'string') return refuse(hostId, q, got);
      for (const [id, deleted] of got) q.dirty.set(id, deleted || q.dirty.get(id) === true);
      if (q.running) return;
      q.running = true;
      // Frames that arrive together are one check.
      setImmediate(() => void drain(hostId, conn, q));
    },
  };
}
