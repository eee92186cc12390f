// What this gateway keeps per node connection about the links it sent (remote-check.ts): each
// link's number and what was last sent for it, the diff a check sends (only what changed since
// this connection got it), the batches of a watch request, and the one-request-at-a-time queue.
import { textKey } from './kit/text';
import type { Link, LinkRepo } from './links';
import type { MarkerFields, SourceRef } from './provider';

/** Bytes of links per watch request (a check's own frame stays small). */
export const WATCH_BATCH_BYTES = 1024 * 1024;
/** Links per watch request (the node's MAX_SET). */
export const WATCH_BATCH_LINKS = 2000;

/** What this gateway last sent a node's connection for one link. */
export interface Sent {
  id: number;
  link: Link;
  own: string[] | undefined;
  /** The check that last saw this link in the list (the others are dropped). */
  seen: number;
}

/** One connection's watch set, as this gateway sent it. */
export interface Watching {
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
export function serial(w: Watching, fn: () => Promise<void>): Promise<void> {
  const run = w.tail.then(fn);
  w.tail = run.catch(() => undefined);
  return run;
}

/**
 * The link numbers of entries about to be sent: a push for one may arrive before the answer
 * (the node watches while it handles the request), and must not be taken for a stranger's.
 */
export function numbered(w: Watching, xs: { key: string; sent: Sent }[]): void {
  for (const x of xs) w.keyOf.set(x.sent.id, x.key);
}

/** Marks entries as what the node now holds. */
export function markSent(w: Watching, xs: { key: string; sent: Sent }[]): void {
  for (const x of xs) {
    w.byKey.set(x.key, x.sent);
    w.keyOf.set(x.sent.id, x.key);
  }
}

export function sameRef(a: SourceRef, b: SourceRef): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

/** Whether the node's copy of `l` (sent as `was`) still matches: the same source and marker. */
export function unchanged(was: Link, l: Link): boolean {
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

export const sameOwn = (a: string[] | undefined, b: string[] | undefined): boolean =>
  a === b || (a ?? []).join('\0') === (b ?? []).join('\0');

export const markerOf = (l: Link): MarkerFields => ({
  offset: l.offset,
  inode: l.inode,
  markerJson: l.markerJson,
  scanState: l.scanState,
});

/** One link as a watch set's entry, and what the gateway then knows the node holds. */
export function setEntry(l: Link, id: number, o: string[] | undefined, seen: number) {
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
export function diff(links: LinkRepo, w: Watching, list: Link[]) {
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
export function batches<T extends { entry: Record<string, unknown> }>(set: T[]): T[][] {
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

export function newWatching(): Watching {
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
