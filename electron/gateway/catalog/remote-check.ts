// The monitor's check of one node's links (issue 19.4), over the node's watch set (protocol 2,
// node/watch.ts). A node keeps the links it checks per connection: a check sends only what
// changed since this connection last got it (a marker the gateway moved after recording, a new
// or re-adopted link, new own texts, a link no longer checked here) and the answer carries only
// the outcomes that are not idle. A new connection starts empty, so everything is sent again;
// the markers always come from the links as stored, so nothing is counted twice after a
// reconnect. The gateway keeps the links, markers, streaks, dedupe and events (monitor.apply).
import { NodeOfflineError, type NodeConnection } from '../nodes/connection';
import { isObject } from '../nodes/protocol';
import type { NodesService } from '../nodes/service';
import type { Logger } from '../types';
import { textKey } from './kit/text';
import type { Link, LinkRepo } from './links';
import type { ApplyOutcome, RemoteChecks } from './monitor';
import type { MarkerFields, SourceRef } from './provider';
import { wireOutcome } from './remote-wire';

/** Bytes of links per watch request (a check's own frame stays small). */
export const WATCH_BATCH_BYTES = 1024 * 1024;
/** Links per watch request (the node's MAX_SET). */
export const WATCH_BATCH_LINKS = 2000;

export interface RemoteCheckDeps {
  nodes: NodesService;
  links: LinkRepo;
  logger: Logger;
  now: () => number;
  requestTimeoutMs: number;
  budgetMs: number;
  /** Probes also map rows to visible messages (live transcripts). */
  visible: boolean;
  /** A request to a node; a timeout drops the connection. */
  ask<T>(
    hostId: string,
    conn: NodeConnection,
    op: string,
    args: Record<string, unknown>,
    ms: number,
  ): Promise<T>;
}

function remaining(deadline: number): number {
  return deadline - performance.now();
}

/** What this gateway last sent a node's connection for one link. */
interface Sent {
  id: number;
  link: Link;
  own: string[] | undefined;
  /** The check that last saw this link in the list (the others are dropped). */
  seen: number;
}

/** One connection's watch set, as this gateway sent it. */
interface Watching {
  byKey: Map<string, Sent>;
  nextId: number;
  checks: number;
}

function sameRef(a: SourceRef, b: SourceRef): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

/** Whether the node's copy of `l` (sent as `was`) still matches: the same source and marker. */
function unchanged(was: Link, l: Link): boolean {
  return (
    was === l ||
    (was.sourceHash === l.sourceHash &&
      was.provider === l.provider &&
      was.offset === l.offset &&
      was.inode === l.inode &&
      was.markerJson === l.markerJson &&
      was.scanState === l.scanState &&
      sameRef(was.ref, l.ref))
  );
}

const sameOwn = (a: string[] | undefined, b: string[] | undefined): boolean =>
  a === b || (a ?? []).join('\0') === (b ?? []).join('\0');

const markerOf = (l: Link): MarkerFields => ({
  offset: l.offset,
  inode: l.inode,
  markerJson: l.markerJson,
  scanState: l.scanState,
});

/**
 * The changes to send `conn` for `list`: links new or changed since it last got them (with
 * their numbers), and the numbers of links no longer checked there. Nothing is marked sent.
 */
function diff(links: LinkRepo, w: Watching, list: Link[]) {
  const own = links.watchedOwnTexts();
  const check = ++w.checks;
  const set: { entry: Record<string, unknown>; sent: Sent; key: string }[] = [];
  // Links with a missing streak: their next outcome is wanted even when idle (it resets it).
  const report: number[] = [];
  for (const l of list) {
    const o = own.get(l.sessionKey);
    const was = w.byKey.get(l.sessionKey);
    if (was) was.seen = check;
    const id = was?.id ?? w.nextId++;
    if (l.streak !== 0) report.push(id);
    if (was && unchanged(was.link, l) && sameOwn(was.own, o)) {
      // The same content: keep the newest objects, so the next comparison is by identity.
      was.link = l;
      was.own = o;
      continue;
    }
    set.push({
      key: l.sessionKey,
      sent: { id, link: l, own: o, seen: check },
      entry: { id, provider: l.provider, ref: l.ref, marker: markerOf(l), own: (o ?? []).map(textKey) },
    });
  }
  const drop: string[] = [];
  for (const [key, s] of w.byKey) if (s.seen !== check) drop.push(key);
  return { set, drop, report };
}

/** `set` in requests of at most WATCH_BATCH_BYTES / WATCH_BATCH_LINKS each. */
function batches<T extends { entry: Record<string, unknown> }>(set: T[]): T[][] {
  const out: T[][] = [];
  let cur: T[] = [];
  let bytes = 0;
  for (const x of set) {
    const n = JSON.stringify(x.entry).length;
    if (cur.length > 0 && (bytes + n > WATCH_BATCH_BYTES || cur.length >= WATCH_BATCH_LINKS)) {
      out.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(x);
    bytes += n;
  }
  out.push(cur);
  return out;
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

/** Each outcome the node sent, applied to the link it was asked about (by its number). */
function applyResults(
  d: RemoteCheckDeps,
  hostId: string,
  w: Watching,
  all: Link[],
  answered: unknown,
  apply: ApplyOutcome,
): void {
  const results = Array.isArray(answered) ? answered : [];
  if (results.length === 0) return;
  const byId = new Map<number, Link>();
  for (const l of all) byId.set(w.byKey.get(l.sessionKey)!.id, l);
  for (const r of results) {
    const l = isObject(r) && typeof r.id === 'number' ? byId.get(r.id) : undefined;
    if (!l) {
      d.logger.warn('catalog: node answered for a link it was not asked about', { nodeId: hostId });
      continue;
    }
    try {
      apply(l, wireOutcome(r, markerOf(l)));
    } catch (err) {
      d.logger.error('catalog: upstream check failed', { sessionKey: l.sessionKey, error: String(err) });
    }
  }
}

export function createRemoteCheck(d: RemoteCheckDeps): RemoteChecks['check'] {
  const { nodes, links, logger, ask } = d;
  const watching = new WeakMap<NodeConnection, Watching>();

  /**
   * One node's share of a monitor check: the watch set brought up to date (large changes in
   * watch requests first, the rest inside the check), then one check, bounded by the budget.
   * Outcomes are applied only from a check whose set matched the stored markers.
   */
  async function check(
    hostId: string,
    all: Link[],
    apply: ApplyOutcome,
    cancelled: () => boolean,
  ): Promise<void> {
    const deadline = performance.now() + d.budgetMs;
    const conn = await connectWithin(d, hostId, all.length);
    if (!conn) return;
    let w = watching.get(conn);
    if (!w) watching.set(conn, (w = { byKey: new Map(), nextId: 1, checks: 0 }));
    const { set, drop, report } = diff(links, w, all);
    const sent = (xs: typeof set) => {
      for (const x of xs) w.byKey.set(x.key, x.sent);
    };
    const timeout = () => Math.max(1, Math.min(d.requestTimeoutMs, remaining(deadline)));
    let answer: { results?: unknown; partial?: unknown };
    try {
      const parts = batches(set);
      const last = parts.pop()!;
      for (const part of parts) {
        await ask(hostId, conn, 'watch', { set: part.map((x) => x.entry) }, timeout());
        sent(part);
      }
      if (cancelled()) return;
      const byKey = w.byKey;
      const ms = timeout();
      answer = await ask<{ results?: unknown; partial?: unknown }>(
        hostId,
        conn,
        'check',
        {
          now: d.now(),
          ...(d.visible ? { visible: true } : {}),
          ...(last.length ? { set: last.map((x) => x.entry) } : {}),
          ...(drop.length ? { drop: drop.map((k) => byKey.get(k)!.id) } : {}),
          ...(report.length ? { report } : {}),
          // The node stops in time to answer within the request's timeout.
          budgetMs: Math.floor(ms * 0.75),
        },
        ms,
      );
      sent(last);
      for (const k of drop) byKey.delete(k);
    } catch (err) {
      logger.warn('catalog: node check inconclusive', {
        nodeId: hostId,
        links: all.length,
        error: String((err as Error)?.message ?? err),
      });
      return;
    }
    if (cancelled()) return;
    applyResults(d, hostId, w, all, answer?.results, apply);
    if (answer?.partial === true)
      logger.warn('catalog: node check over budget; the rest waits for the next check', {
        nodeId: hostId,
        links: all.length,
      });
    nodes.checked(hostId);
  }

  return check;
}
