// A node's file events on the gateway's side (issue 31), and what a request to a node's
// connection shares with the monitor's check (remote-check.ts): the request's context and
// timeouts, the `push: true` a request carries, the outcomes applied by link number; then the
// event check of the links a `changed` frame named, and the node's watch set following the
// watched links between checks.
import type { NodeConnection } from '../nodes/connection';
import { isObject } from '../nodes/protocol';
import type { Link } from './links';
import type { ApplyOutcome, PushedLinks } from './monitor';
import type { RemoteCheckDeps } from './remote-check';
import { wireOutcome } from './remote-wire';
import {
  batches,
  diff,
  markSent,
  markerOf,
  numbered,
  sameOwn,
  setEntry,
  unchanged,
  type Watching,
} from './remote-watch-set';

export function remaining(deadline: number): number {
  return deadline - performance.now();
}

/** Each outcome the node sent, applied to the link it was asked about (by its number). */
export function applyResults(
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
export interface Ctx {
  hostId: string;
  conn: NodeConnection;
  w: Watching;
  deadline: number;
}

export const timeoutWithin = (d: RemoteCheckDeps, deadline: number) =>
  Math.max(1, Math.min(d.requestTimeoutMs, remaining(deadline)));

/** The `push: true` of a request, while the node can push and has not been asked on this connection. */
export function pushArg(d: RemoteCheckDeps, c: Ctx): { push?: true } {
  return !c.w.pushing && d.pushes() && d.nodes.hello(c.hostId)?.pushes === true ? { push: true } : {};
}

/**
 * An event check: the links the node said changed, read now from their markers as stored (a
 * marker or own texts the node does not hold yet go with it), their outcomes applied by
 * `apply` (the rules of a file event). Failures are logged; the cadence reads them anyway.
 */
export async function eventCheck(
  d: RemoteCheckDeps,
  c: Ctx,
  list: Link[],
  apply: ApplyOutcome,
): Promise<void> {
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
export const fresh = (d: RemoteCheckDeps, w: Watching, list: Link[]): Link[] =>
  w.touched.size
    ? list.flatMap((l) => (w.touched.has(l.sessionKey) ? (d.links.get(l.sessionKey) ?? []) : [l]))
    : list;

/**
 * Between checks: the node's watch set brought to `list` (in `watch` requests, asking it to push),
 * so its files are watched from the start and follow adoptions and moved markers.
 */
export async function follow(d: RemoteCheckDeps, c: Ctx, list: Link[], all: readonly Link[]): Promise<void> {
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

/** The links of a node's `changed` frames (by number), checked now under the monitor's rules. */
export function pushedCheck(
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
