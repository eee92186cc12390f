// Decoded signal-log segments kept in memory, so that reconciliation (`changesSince`) reads memory
// instead of decoding SQLite rows (decoding is most of a cold read: docs/perf.md).
//
// Exactness: an entry holds, for one session, its head, pruned watermark and earliest retained
// sequence, and every event with lo < sequence <= hi (one contiguous segment of its log).
// * This process's own appends extend entries after their commit (record() knows what it wrote).
// * Every other write to the log or the heads on this connection (pruning, a delete by hand, an
//   append inside a caller's transaction that may still roll back) fires a temporary trigger that
//   bumps `epoch`; a commit by any other connection (another gateway, another process) moves
//   PRAGMA data_version. Either one drops every entry before the next read.
// * Inside a transaction the cache is bypassed: what that transaction sees may never commit.
import type { StateEvent } from '../../../shared/domain';
import type { Db } from '../db/open';
import { dataVersionOf, onLogWrites, stateEvent } from './repo';

/** At most this many events are held (about 200 bytes each), across all sessions. */
export const CACHE_MAX_EVENTS = 20_000;
/** At most this many sessions have an entry; the least recently used goes first. */
export const CACHE_MAX_SESSIONS = 4_096;

export interface LogFacts {
  head: number;
  pruned: number;
  /** The first retained sequence; undefined when the session has no rows. */
  earliest: number | undefined;
}

interface Entry extends LogFacts {
  lo: number;
  hi: number;
  events: StateEvent[];
}

export interface Page {
  facts: LogFacts;
  events: StateEvent[];
  truncated: boolean;
}

let instances = 0;

/** The cache of one connection (a class: its parts are short methods over shared fields). */
export class LogCache {
  private readonly entries = new Map<string, Entry>();
  private held = 0;
  private epoch = 0;
  private quiet = false;
  private readonly dataVersion: () => number;
  private seenVersion: number;
  private seenEpoch = 0;

  constructor(private readonly db: Db) {
    onLogWrites(db, `sightline_log_written_${++instances}`, () => {
      if (!this.quiet) this.epoch++;
    });
    this.dataVersion = dataVersionOf(db);
    this.seenVersion = this.dataVersion();
  }

  get size() {
    return { sessions: this.entries.size, events: this.held };
  }

  readonly clear = (): void => {
    this.entries.clear();
    this.held = 0;
  };

  /**
   * Whether entries may be read now (outside a transaction), after dropping them all when
   * anything but this process's own appends changed the log since the last call.
   */
  usable(): boolean {
    if (this.db.inTransaction) return false;
    const v = this.dataVersion();
    if (v !== this.seenVersion || this.epoch !== this.seenEpoch) {
      this.clear();
      this.seenVersion = v;
      this.seenEpoch = this.epoch;
    }
    return true;
  }

  /** The page after `after` (after < head), or undefined when the cache cannot answer exactly. */
  page(key: string, agentId: string, after: number, limit: number): Page | undefined {
    const e = this.lookup(key, agentId);
    if (!e) return undefined;
    if (after >= e.head) return { facts: e, events: [], truncated: false };
    if (after < e.lo) return undefined;
    const ev = e.events;
    const lo = firstAfter(ev, after);
    const available = ev.length - lo;
    if (available <= limit && e.hi < e.head) return undefined; // newer events are not held
    const end = lo + Math.min(limit, available);
    const out = new Array<StateEvent>(end - lo);
    for (let i = lo; i < end; i++) out[i - lo] = copyEvent(ev[i]!);
    return { facts: e, events: out, truncated: available > limit };
  }

  /**
   * Remembers what a cold read found: `events` are every event with after < sequence <= hi,
   * where hi is the last event's sequence, or the head when `complete` (nothing follows).
   * Call only after usable() returned true, with facts and events read after that call.
   */
  store(
    key: string,
    agentId: string,
    facts: LogFacts,
    after: number,
    events: StateEvent[],
    complete: boolean,
  ) {
    const last = events.length ? events[events.length - 1]!.sequence : after;
    if (last > facts.head) return; // read across another connection's commit: do not keep it
    const next: Entry = {
      ...facts,
      lo: Math.min(after, facts.head),
      hi: complete ? facts.head : last,
      events: events.map(copyEvent), // the caller keeps its own objects
    };
    const k = id(key, agentId);
    const old = this.entries.get(k);
    if (old && next.lo <= old.hi && old.lo <= next.hi) union(next, old);
    this.drop(k);
    this.entries.set(k, next);
    this.held += next.events.length;
    this.trim();
  }

  /** Runs this process's own append: its writes do not count as foreign (see appended()). */
  own<T>(fn: () => T): T {
    if (this.db.inTransaction) return fn(); // a caller's transaction: the triggers stay loud
    this.quiet = true;
    try {
      return fn();
    } finally {
      this.quiet = false;
    }
  }

  /** After the commit of an own append (outside any transaction): extends the session's entry. */
  appended(key: string, agentId: string, event: StateEvent) {
    const e = this.entries.get(id(key, agentId));
    if (!e) return;
    if (e.hi === e.head) {
      e.events.push(copyEvent(event));
      e.hi = event.sequence;
      this.held++;
    }
    e.head = Math.max(e.head, event.sequence);
    e.earliest ??= event.sequence;
    if (this.held > CACHE_MAX_EVENTS) this.trim();
  }

  private drop(k: string) {
    const e = this.entries.get(k);
    if (!e) return;
    this.held -= e.events.length;
    this.entries.delete(k);
  }

  /** Keeps the budget: least recently used sessions go, then the oldest events of the last one. */
  private trim() {
    for (const [k] of this.entries) {
      if (this.held <= CACHE_MAX_EVENTS && this.entries.size <= CACHE_MAX_SESSIONS) return;
      if (this.entries.size === 1) break;
      this.drop(k);
    }
    const last = [...this.entries.values()][0];
    if (last && this.held > CACHE_MAX_EVENTS) {
      const cut = this.held - CACHE_MAX_EVENTS;
      last.lo = last.events[cut - 1]!.sequence;
      last.events.splice(0, cut);
      this.held -= cut;
    }
  }

  private lookup(key: string, agentId: string): Entry | undefined {
    const k = id(key, agentId);
    const e = this.entries.get(k);
    if (e) {
      this.entries.delete(k); // most recently used last
      this.entries.set(k, e);
    }
    return e;
  }
}

export function createLogCache(db: Db): LogCache {
  return new LogCache(db);
}

const id = (key: string, agentId: string) => `${agentId}:${key}`; // agent ids never hold ':'

/** The index of the first event with a sequence above `after` (events are in sequence order). */
function firstAfter(ev: StateEvent[], after: number): number {
  let lo = 0;
  let hi = ev.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ev[mid]!.sequence <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Overlapping or adjacent segments: `next` becomes their union. */
function union(next: Entry, old: Entry): void {
  if (next.lo <= old.lo) next.events = next.events.concat(old.events.filter((x) => x.sequence > next.hi));
  else next.events = old.events.concat(next.events.filter((x) => x.sequence > old.hi));
  next.lo = Math.min(next.lo, old.lo);
  next.hi = Math.max(next.hi, old.hi);
}

/** A caller owns what it gets: a fresh event, a fresh payload (nested values copied too, rarely). */
export const copyEvent = (e: StateEvent): StateEvent =>
  stateEvent(
    e.sequence,
    e.kind,
    e.actorType,
    e.occurredAt,
    e.summary,
    e.actorId,
    e.runId,
    e.payload && copyPayload(e.payload),
  );

function copyPayload(p: Record<string, unknown>): Record<string, unknown> {
  for (const k in p) {
    const v = p[k];
    if (typeof v === 'object' && v !== null) return JSON.parse(JSON.stringify(p)) as Record<string, unknown>;
  }
  return { ...p };
}
