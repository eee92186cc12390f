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
import { NodeOfflineError, type NodeConnection } from '../nodes/connection';
import { isObject } from '../nodes/protocol';
import type { NodesService } from '../nodes/service';
import type { Logger } from '../types';
import { textKey } from './kit/text';
import type { Link, LinkRepo } from './links';
import type { ApplyOutcome, PushedLinks } from './monitor';
import { createPushes } from './remote-push';
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
  /** The session key of each link number. */
  keyOf: Map<number, string>;
  nextId: number;
  checks: number;
  /** The node answered a request that asked it to push. */
  pushing: boolean;
  /** The end of the request under way: the next one starts after it. */
  tail: Promise<void>;
  /** Links an event check applied since the last check (that check re-reads their rows). */
  touched: Set<string>;
  /** The watched links (links.watched()) this set last followed, and whether a follow is under way. */
  followed: readonly Link[] | undefined;
  following: boolean;
}

/** Runs `fn` after the connection's request under way (one at a time). */
function serial(w: Watching, fn: () => Promise<void>): Promise<void> {
  const run = w.tail.then(fn);
  w.tail = run.catch(() => undefined);
  return run;
}

/**
 * The link numbers of entries about to be sent: a push for one may arrive before the answer
 * (the node watches while it handles the request), and must not be taken for a stranger's.
 */
function numbered(w: Watching, xs: { key: string; sent: Sent }[]): void {
  for (const x of xs) w.keyOf.set(x.sent.id, x.key);
}

/** Marks entries as what the node now holds. */
function markSent(w: Watching, xs: { key: string; sent: Sent }[]): void {
  for (const x of xs) {
    w.byKey.set(x.key, x.sent);
    w.keyOf.set(x.sent.id, x.key);
  }
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

/** One link as a watch set's entry, and what the gateway then knows the node holds. */
function setEntry(l: Link, id: number, o: string[] | undefined, seen: number) {
  return {
    key: l.sessionKey,
    sent: { id, link: l, own: o, seen },
    entry: { id, provider: l.provider, ref: l.ref, marker: markerOf(l), own: (o ?? []).map(textKey) },
  } as { entry: Record<string, unknown>; sent: Sent; key: string };
}

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
    set.push(setEntry(l, id, o, check));
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

/** What a check of a connection needs besides the deps. */
interface Ctx {
  hostId: string;
  conn: NodeConnection;
  w: Watching;
  deadline: number;
}

const timeoutWithin = (d: RemoteCheckDeps, deadline: number) =>
  Math.max(1, Math.min(d.requestTimeoutMs, remaining(deadline)));

/** The `push: true` of a request, while the node can push and has not been asked on this connection. */
function pushArg(d: RemoteCheckDeps, c: Ctx): { push?: true } {
  return !c.w.pushing && d.pushes() && d.nodes.hello(c.hostId)?.pushes === true ? { push: true } : {};
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

/**
 * An event check: the links the node said changed, read now from their markers as stored (a
 * marker or own texts the node does not hold yet go with it), their outcomes applied by
 * `apply` (the rules of a file event). Failures are logged; the cadence reads them anyway.
 */
async function eventCheck(d: RemoteCheckDeps, c: Ctx, list: Link[], apply: ApplyOutcome): Promise<void> {
  const { hostId, conn, w } = c;
  const own = d.links.watchedOwnTexts();
  const mine = list.filter((l) => w.byKey.has(l.sessionKey));
  if (mine.length === 0 || conn.closed) return;
  const set: ReturnType<typeof setEntry>[] = [];
  const report: number[] = [];
  for (const l of mine) {
    const was = w.byKey.get(l.sessionKey)!;
    const o = own.get(l.sessionKey);
    if (l.streak !== 0) report.push(was.id);
    if (!unchanged(was.link, l) || !sameOwn(was.own, o)) set.push(setEntry(l, was.id, o, was.seen));
  }
  const ms = timeoutWithin(d, c.deadline);
  let answer: { results?: unknown };
  try {
    answer = await d.ask<{ results?: unknown }>(
      hostId,
      conn,
      'check',
      {
        now: d.now(),
        ...(d.visible ? { visible: true } : {}),
        ...(set.length ? { set: set.map((x) => x.entry) } : {}),
        ids: mine.map((l) => w.byKey.get(l.sessionKey)!.id),
        ...(report.length ? { report } : {}),
        budgetMs: Math.floor(ms * 0.75),
      },
      ms,
    );
  } catch (err) {
    d.logger.warn('catalog: node event check inconclusive', {
      nodeId: hostId,
      links: mine.length,
      error: String((err as Error)?.message ?? err),
    });
    return;
  }
  markSent(w, set);
  for (const l of mine) w.touched.add(l.sessionKey);
  applyResults(d, hostId, w, mine, answer?.results, apply);
}

/** `list` with the rows an event check moved as stored now. */
const fresh = (d: RemoteCheckDeps, w: Watching, list: Link[]): Link[] =>
  w.touched.size
    ? list.flatMap((l) => (w.touched.has(l.sessionKey) ? (d.links.get(l.sessionKey) ?? []) : [l]))
    : list;

/**
 * Between checks: the node's watch set brought to `list` (in `watch` requests, asking it to push),
 * so its files are watched from the start and follow adoptions and moved markers.
 */
async function follow(d: RemoteCheckDeps, c: Ctx, list: Link[], all: readonly Link[]): Promise<void> {
  const { hostId, conn, w } = c;
  const { set, drop } = diff(d.links, w, fresh(d, w, list));
  if (set.length === 0 && drop.length === 0 && w.pushing) return void (w.followed = all);
  const parts = batches(set);
  try {
    for (const [i, part] of parts.entries()) {
      const last = i === parts.length - 1;
      numbered(w, part);
      await d.ask(
        hostId,
        conn,
        'watch',
        {
          ...(part.length ? { set: part.map((x) => x.entry) } : {}),
          ...(last && drop.length ? { drop: drop.map((k) => w.byKey.get(k)!.id) } : {}),
          ...(last ? { push: true } : {}),
        },
        d.requestTimeoutMs,
      );
      markSent(w, part);
    }
  } catch (err) {
    d.logger.warn('catalog: cannot bring a node its watched links', {
      nodeId: hostId,
      error: String((err as Error)?.message ?? err),
    });
    // Tried again when the watched links change or at the next check, not every second.
    w.followed = all;
    return;
  }
  for (const k of drop) {
    w.keyOf.delete(w.byKey.get(k)!.id);
    w.byKey.delete(k);
  }
  w.pushing = true;
  w.followed = all;
}

function newWatching(): Watching {
  return {
    byKey: new Map(),
    keyOf: new Map(),
    nextId: 1,
    checks: 0,
    pushing: false,
    tail: Promise.resolve(),
    touched: new Set(),
    followed: undefined,
    following: false,
  };
}

/** The links of a node's `changed` frames (by number), checked now under the monitor's rules. */
function pushedCheck(
  d: RemoteCheckDeps,
  pushed: PushedLinks,
  c: Omit<Ctx, 'deadline'>,
  changed: Map<number, boolean>,
): Promise<void> {
  const keys = new Map<string, boolean>();
  for (const [id, deleted] of changed) {
    const key = c.w.keyOf.get(id);
    if (key !== undefined) keys.set(key, deleted);
  }
  if (keys.size === 0) return Promise.resolve();
  const { links, apply } = pushed.links(c.hostId, keys);
  return eventCheck(d, { ...c, deadline: performance.now() + d.budgetMs }, links, apply);
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
