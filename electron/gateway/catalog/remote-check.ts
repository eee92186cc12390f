// The monitor's check of one node's links (issue 19.4), over the node's watch set (protocol 2,
// node/watch.ts). A node keeps the links it checks per connection: a check sends only what
// changed since this connection last got it (a marker the gateway moved after recording, a new
// or re-adopted link, new own texts, a link no longer checked here) and the answer carries only
// the outcomes that are not idle. A new connection starts empty, so everything is sent again;
// the markers always come from the links as stored, so nothing is counted twice after a
// reconnect. The gateway keeps the links, markers, streaks, dedupe and events (monitor.apply).
//
// Issue 31: a node whose hello says `pushes` is asked (`push: true`) to watch its links' files
// while the catalog runs with file events; its `changed` frames (remote-push.ts) make an event
// check of those links (`check` with `ids`), applied with the rules of a local file event
// (monitor.ts, PushedLinks). A connection runs one request of the monitor's at a time: a check
// and an event check never overlap, and a check after an event check re-reads the rows it moved.
// The watch set's bookkeeping is remote-watch-set.ts; the event check and the following of the
// watched links between checks are remote-events.ts.
import { NodeOfflineError, type NodeConnection } from '../nodes/connection';
import type { NodesService } from '../nodes/service';
import type { Logger } from '../types';
import type { Link, LinkRepo } from './links';
import type { ApplyOutcome, PushedLinks } from './monitor';
import { createPushes } from './remote-push';
import { applyResults, follow, fresh, pushArg, pushedCheck, timeoutWithin, type Ctx } from './remote-events';
import { batches, diff, markSent, newWatching, numbered, serial, type Watching } from './remote-watch-set';

export { WATCH_BATCH_BYTES, WATCH_BATCH_LINKS } from './remote-watch-set';

export interface RemoteCheckDeps {
  nodes: NodesService;
  links: LinkRepo;
  logger: Logger;
  now: () => number;
  requestTimeoutMs: number;
  budgetMs: number;
  /** Probes also map rows to visible messages (live transcripts). */
  visible: boolean;
  /** Whether nodes that can push are asked to (the catalog runs with file events). */
  pushes(): boolean;
  /** A request to a node; a timeout drops the connection. */
  ask<T>(
    hostId: string,
    conn: NodeConnection,
    op: string,
    args: Record<string, unknown>,
    ms: number,
  ): Promise<T>;
}

/** The node's connection within the budget; undefined (logged) when it is offline. */
async function connectWithin(
  d: RemoteCheckDeps,
  hostId: string,
  links: number,
): Promise<NodeConnection | undefined> {
  try {
    return await Promise.race([
      d.nodes.connection(hostId),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new NodeOfflineError('no connection within the budget')), d.budgetMs).unref(),
      ),
    ]);
  } catch (err) {
    // Inconclusive for every link: markers and streaks stay as they are.
    d.logger.warn('catalog: node offline; its links wait for it', {
      nodeId: hostId,
      links,
      error: String((err as Error)?.message ?? err),
    });
    return undefined;
  }
}

/**
 * One node's share of a monitor check: the watch set brought up to date (large changes in watch
 * requests first, the rest inside the check), then one check, bounded by the budget. Outcomes
 * are applied only from a check whose set matched the stored markers.
 */
async function fullCheck(
  d: RemoteCheckDeps,
  c: Ctx,
  list: Link[],
  apply: ApplyOutcome,
  cancelled: () => boolean,
) {
  const { hostId, conn, w } = c;
  // Rows an event check moved since this check listed them: as stored now.
  const all = fresh(d, w, list);
  w.touched.clear();
  const { set, drop, report } = diff(d.links, w, all);
  const push = pushArg(d, c);
  let answer: { results?: unknown; partial?: unknown };
  try {
    const parts = batches(set);
    const last = parts.pop()!;
    for (const part of parts) {
      numbered(w, part);
      await d.ask(hostId, conn, 'watch', { set: part.map((x) => x.entry) }, timeoutWithin(d, c.deadline));
      markSent(w, part);
    }
    if (cancelled()) return;
    const ms = timeoutWithin(d, c.deadline);
    numbered(w, last);
    answer = await d.ask<{ results?: unknown; partial?: unknown }>(
      hostId,
      conn,
      'check',
      {
        now: d.now(),
        ...(d.visible ? { visible: true } : {}),
        ...(last.length ? { set: last.map((x) => x.entry) } : {}),
        ...(drop.length ? { drop: drop.map((k) => w.byKey.get(k)!.id) } : {}),
        ...(report.length ? { report } : {}),
        ...push,
        // The node stops in time to answer within the request's timeout.
        budgetMs: Math.floor(ms * 0.75),
      },
      ms,
    );
    markSent(w, last);
    if (push.push) w.pushing = true;
    for (const k of drop) {
      w.keyOf.delete(w.byKey.get(k)!.id);
      w.byKey.delete(k);
    }
  } catch (err) {
    d.logger.warn('catalog: node check inconclusive', {
      nodeId: hostId,
      links: all.length,
      error: String((err as Error)?.message ?? err),
    });
    return;
  }
  if (cancelled()) return;
  applyResults(d, hostId, w, all, answer?.results, apply);
  if (answer?.partial === true)
    d.logger.warn('catalog: node check over budget; the rest waits for the next check', {
      nodeId: hostId,
      links: all.length,
    });
  d.nodes.checked(hostId);
}

export function createRemoteCheck(d: RemoteCheckDeps) {
  const watching = new WeakMap<NodeConnection, Watching>();
  let pushed: PushedLinks | undefined;

  const watchingOf = (conn: NodeConnection): Watching => {
    let w = watching.get(conn);
    if (!w) watching.set(conn, (w = newWatching()));
    return w;
  };

  const pushes = createPushes({
    logger: d.logger,
    now: d.now,
    known: (conn, id) => watching.get(conn)?.keyOf.has(id) === true,
    enabled: () => pushed !== undefined && d.pushes(),
    run(hostId, conn, changed) {
      const w = watchingOf(conn);
      return serial(w, () =>
        pushed ? pushedCheck(d, pushed, { hostId, conn, w }, changed) : Promise.resolve(),
      );
    },
  });
  /** Each node's current connection, when it can push. */
  const live = new Map<string, NodeConnection>();
  d.nodes.onConnection((hostId, conn) => {
    conn.onPush((f) => pushes.frame(hostId, conn, f));
    if (d.nodes.hello(hostId)?.pushes === true) live.set(hostId, conn);
    else live.delete(hostId);
  });

  async function check(hostId: string, all: Link[], apply: ApplyOutcome, cancelled: () => boolean) {
    const deadline = performance.now() + d.budgetMs;
    const conn = await connectWithin(d, hostId, all.length);
    if (!conn) return;
    const w = watchingOf(conn);
    await serial(w, () => fullCheck(d, { hostId, conn, w, deadline }, all, apply, cancelled));
  }

  return {
    check,
    stale(all: readonly Link[]): string[] {
      if (!pushed || !d.pushes()) return [];
      const out: string[] = [];
      for (const [hostId, conn] of live) {
        if (conn.closed) live.delete(hostId);
        else if (watching.get(conn)?.followed !== all) out.push(hostId);
      }
      return out;
    },
    follow(hostId: string, list: Link[], all: readonly Link[]): void {
      const conn = live.get(hostId);
      if (!conn || conn.closed || !d.pushes()) return;
      const w = watchingOf(conn);
      if (w.following || w.followed === all) return;
      w.following = true;
      const deadline = performance.now() + d.budgetMs;
      void serial(w, () => follow(d, { hostId, conn, w, deadline }, list, all)).finally(() => {
        w.following = false;
      });
    },
    /** The monitor's rules for the links a node said changed. */
    onPushed(links: PushedLinks): void {
      pushed = links;
    },
  };
}
