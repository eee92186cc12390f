// The state core of the spec: append with dedupe and heads, the cursor state machine, explicit
// registration, acknowledge-on-drain, reconciliation, the start-up sweep and pruning.
// Longer than 300 lines on purpose: the append transaction, the cursor state machine and
// reconciliation are one piece of the spec whose invariants read best in one place. What is not
// part of it lives beside: views.ts (timeline, cursor rows), prune.ts, shared-db.ts, log-cache.ts,
// repo.ts (the statements).
import { NOTIFY_KINDS, type NoticeEntry, type StateEvent, type StateEventRow } from '../../../shared/domain';
import { isBareKey, noticeContextKey, noticeText, parseSessionKey } from '../../../shared/session-keys';
import type { Db } from '../db/open';
import type { Ownership, OwnershipChange } from '../ownership';
import {
  versionKey,
  type ChangesSince,
  type CursorRow,
  type GatewayEvent,
  type Logger,
  type RecordInput,
  type SessionState,
} from '../types';
import type { NoticeQueues } from './notice-queue';
import { createPruner, PRUNE_INTERVAL_MS } from './prune';
import { normaliseRecord, resolveKey, type NormalisedRecord } from './record-input';
import { createSharedDbPoller } from './shared-db';
import { createLogCache, type LogCache, type LogFacts } from './log-cache';
import { createStateRepo, stateEvent, toStateEvent, type StateRepo } from './repo';
import { createStateViews } from './views';
import type { HeartbeatWaker } from './waker';

export const CHANGES_LIMIT = 200;

/**
 * A cursor's `updated_at` moves in steps of an hour: expiry after 30 days untouched does not need
 * millisecond precision, and a hot cursor then keeps its place in the age index (fewer pages per
 * append).
 */
export const TOUCH_GRANULARITY_MS = 60 * 60 * 1000;
const touched = (previous: number, now: number) =>
  now - previous >= TOUCH_GRANULARITY_MS || now < previous ? now : previous;

interface PendingNotice {
  watcher: string;
  target: string;
  changesSince: number;
}

export interface StateCoreDeps {
  db: Db;
  now: () => number;
  logger: Logger;
  queues: NoticeQueues;
  waker: HeartbeatWaker;
  /** Whether a watcher session still exists (the sweep re-queues only for those). */
  sessionExists: (key: string) => boolean;
  /** Which sessions this gateway runs: notices are queued and acknowledged only for those. */
  ownership: Pick<Ownership, 'owns' | 'holds' | 'fence' | 'poll'>;
  /** What the rest of the gateway does when sessions change hands (runs, turns). */
  onOwnershipChange?: (change: OwnershipChange) => void;
  /** Whether the session has a parent (the sessions store answers: it owns that table). */
  hasParent: (key: string, agentId: string) => boolean;
  emit: (event: GatewayEvent) => void;
  /** Runs after the outermost commit when called inside a service's transaction (else now). */
  afterCommit: (fn: () => void) => void;
}

export interface StateCore extends SessionState {
  /** Addition: the signal log newest first, for the timeline. */
  timeline(
    sessionKey: string,
    opts?: {
      agentId?: string;
      beforeSequence?: number;
      limit?: number;
      kinds?: string[];
      actorTypes?: string[];
    },
  ): StateEventRow[];
  /**
   * Addition: every session's state version at once (the fleet snapshot), keyed by
   * versionKey(sessionKey, agentId); sessions without events are absent (version 0).
   */
  versions(): Map<string, number>;
  /** Addition: cursors on and held by a session. */
  watchers(sessionKey: string): { watchedBy: CursorRow[]; watching: CursorRow[] };
  /** Addition: the human-turn gate — the session has a parent or at least one watcher. */
  hasParentOrWatcher(sessionKey: string, agentId?: string): boolean;
  /** Addition: drop the cursors a reset session held. */
  removeCursorsHeldBy(watcher: string): void;
  /**
   * Addition: part of deleting a session (inside its transaction): its signal log rows, its head
   * and every cursor where it is watcher or target. Sequences are never reused, so a session
   * created later under the key starts clean above everything the old one had.
   */
  removeSession(sessionKey: string, agentId: string): void;
  /**
   * Addition: delivers notices for events that other gateways sharing this database committed,
   * after taking over the sessions of gateways that are gone (timers call it every second;
   * returns how many notices were found).
   */
  pollShared(): number;
}

type Appended = { event: StateEvent; notices: PendingNotice[]; cursorsTouched: string[]; created: boolean };

/** The append transaction's body: the event (or its dedupe twin), its head, its fan-out. */
function appendRecord(repo: StateRepo, r: NormalisedRecord, now: () => number): Appended {
  if (r.dedupeKey !== undefined) {
    const existing = repo.eventByDedupe(r.dedupeKey);
    if (existing) return { event: toStateEvent(existing), notices: [], cursorsTouched: [], created: false };
  }
  // The previous head matters only to a producer watcher that holds no cursor yet.
  const previousHead = r.watchers.length ? (repo.head(r.sessionKey, r.agentId)?.last_sequence ?? 0) : 0;
  const seq = repo.insertEvent(r);
  repo.upsertHead(r.sessionKey, r.agentId, seq);
  const { notices, cursorsTouched } = r.bare
    ? { notices: [], cursorsTouched: [] }
    : fanOut(repo, r, seq, previousHead, now());
  const payload = r.payload === undefined ? undefined : (JSON.parse(r.payload) as Record<string, unknown>);
  const event = stateEvent(seq, r.kind, r.actorType, r.occurredAt, r.summary, r.actorId, r.runId, payload);
  return { event, notices, cursorsTouched, created: true };
}

/** The cursor state machine on an append at `seq`: which cursors move, which watchers get a notice. */
function fanOut(repo: StateRepo, r: NormalisedRecord, seq: number, previousHead: number, t: number) {
  const notices: PendingNotice[] = [];
  const cursorsTouched: string[] = [];
  const notify = NOTIFY_KINDS.has(r.kind);
  // Notify kinds: every cursor on the target but the actor's advances in three statements
  // (self-suppression is in their WHERE); these rows are the holders, with their L.
  const holders = new Map<string, number>();
  if (notify)
    for (const c of repo.advanceCursors(r.sessionKey, r.actorId ?? null, seq, t, TOUCH_GRANULARITY_MS))
      holders.set(c.watcher_key, c.last_seen);
  const watchers = new Set<string>();
  for (const w of r.watchers) watchers.add(parseSessionKey(w).key);
  for (const w of holders.keys()) watchers.add(w);
  const cursor = (w: string, lastSeen: number) =>
    repo.upsertCursor({
      watcher_key: w,
      target_key: r.sessionKey,
      last_seen: lastSeen,
      notified: seq,
      material: seq,
      updated_at: t,
    });
  for (const w of watchers) {
    if (isBareKey(w) || w === r.sessionKey) continue; // bare keys never hold cursors
    if (r.kind === 'child_spawned') {
      cursor(w, seq);
      cursorsTouched.push(w);
      continue;
    }
    if (!notify || r.actorId === w) continue; // log-only kinds; self-suppression
    const lastSeen = holders.get(w);
    if (lastSeen !== undefined) {
      notices.push({ watcher: w, target: r.sessionKey, changesSince: lastSeen });
    } else {
      // A producer watcher without a cursor (e.g. a parent whose cursor expired) is what the
      // producer set is for on notify kinds: it gets one, from the version before this event.
      cursor(w, previousHead);
      notices.push({ watcher: w, target: r.sessionKey, changesSince: previousHead });
    }
    cursorsTouched.push(w);
  }
  return { notices, cursorsTouched };
}

/** Acknowledge-on-drain: each cursor's L takes its frozen N; returns the notices to reopen. */
function acknowledgeCursors(repo: StateRepo, watcher: string, targets: string[], t: number): PendingNotice[] {
  const reopened: PendingNotice[] = [];
  for (const target of new Set(targets)) {
    const c = repo.cursor(watcher, target);
    if (!c) continue;
    const frozen = c.notified;
    repo.upsertCursor({
      ...c,
      last_seen: frozen,
      notified: Math.max(c.material, frozen),
      updated_at: touched(c.updated_at, t),
    });
    // Interleaved work: material passed the frozen watermark while the notice was pending.
    if (c.material > frozen) reopened.push({ watcher, target, changesSince: frozen });
  }
  return reopened;
}

/** The sweep's body: a notice for every pending cursor whose watcher is eligible. */
function pendingNotices(repo: StateRepo, eligibleWatcher: (w: string) => boolean): PendingNotice[] {
  const notices: PendingNotice[] = [];
  const eligible = new Map<string, boolean>(); // one lookup per watcher, not per cursor
  for (const [watcher, target, lastSeen, notified, material] of repo.pendingCursors()) {
    let e = eligible.get(watcher);
    if (e === undefined) eligible.set(watcher, (e = eligibleWatcher(watcher)));
    if (!e) continue;
    if (notified !== material) repo.setNotified(watcher, target, material);
    notices.push({ watcher, target, changesSince: lastSeen });
  }
  return notices;
}

/**
 * An append notifies every watcher of one target, the sweep a few targets many times: each
 * target's context key (hex of its UTF-8 bytes) is computed once, in a bounded memo.
 */
function contextKeyMemo(): (target: string) => string {
  const contextKeys = new Map<string, string>();
  return (target) => {
    let k = contextKeys.get(target);
    if (k === undefined) {
      if (contextKeys.size >= 4096) contextKeys.clear();
      contextKeys.set(target, (k = noticeContextKey(target)));
    }
    return k;
  };
}

const changes = (f: LogFacts, after: number, events: StateEvent[], truncated: boolean): ChangesSince => ({
  stateVersion: f.head,
  events,
  truncated,
  earliestAvailableSequence: f.earliest ?? (f.pruned > 0 ? f.pruned + 1 : 0),
  historyGap: after < f.head && after < f.pruned,
});

/** Reconciliation's page: from the log cache when it can answer exactly, else three index reads. */
function readChanges(
  repo: StateRepo,
  cache: LogCache,
  k: { key: string; agentId: string },
  after: number,
  limit: number,
) {
  const cached = cache.usable();
  const page = cached ? cache.page(k.key, k.agentId, after, limit) : undefined;
  if (page) return changes(page.facts, after, page.events, page.truncated);
  // Cold: three index lookups, then the segment read is kept for the next reader.
  const head = repo.head(k.key, k.agentId);
  const facts: LogFacts = {
    head: head?.last_sequence ?? 0,
    pruned: head?.pruned_max_sequence ?? 0,
    earliest: repo.earliest(k.key, k.agentId),
  };
  const rows = after >= facts.head ? [] : repo.eventsAfter(k.key, k.agentId, after, limit + 1);
  if (cached) cache.store(k.key, k.agentId, facts, after, rows, rows.length <= limit);
  return changes(facts, after, rows.slice(0, limit), rows.length > limit);
}

/** The reading half of the core: versions, reconciliation, cursors and the views. */
function stateReads(repo: StateRepo, cache: LogCache, deps: StateCoreDeps) {
  const views = createStateViews(repo, deps.queues);
  return {
    version(sessionKey: string, agentId?: string) {
      const k = resolveKey(sessionKey, agentId);
      return repo.head(k.key, k.agentId)?.last_sequence ?? 0;
    },
    changesSince(
      sessionKey: string,
      after: number,
      opts?: { agentId?: string; limit?: number },
    ): ChangesSince {
      if (typeof after !== 'number' || !Number.isSafeInteger(after) || after < 0) {
        throw new Error('changesSince must be a non-negative integer');
      }
      const rawLimit = opts?.limit ?? CHANGES_LIMIT;
      const limit = Math.min(
        CHANGES_LIMIT,
        Math.max(1, Math.floor(Number.isFinite(rawLimit) ? rawLimit : CHANGES_LIMIT)),
      );
      return readChanges(repo, cache, resolveKey(sessionKey, opts?.agentId), after, limit);
    },
    versions() {
      const out = new Map<string, number>();
      for (const [key, agentId, seq] of repo.allHeads()) out.set(versionKey(key, agentId), seq);
      return out;
    },
    cursor(watcher: string, target: string) {
      const c = repo.cursor(parseSessionKey(watcher).key, parseSessionKey(target).key);
      return c ? { lastSeen: c.last_seen, notified: c.notified, material: c.material } : undefined;
    },
    timeline: views.timeline,
    watchers: views.watchers,
    hasParentOrWatcher(sessionKey: string, agentId?: string) {
      const k = resolveKey(sessionKey, agentId);
      return deps.hasParent(k.key, k.agentId) || repo.hasWatcher(k.key);
    },
  };
}

/**
 * Queues each notice for a watcher this gateway runs and asks for its wake. Notices name committed
 * versions only: inside a service's transaction they wait for its commit.
 */
function noticeDelivery(deps: StateCoreDeps): (notices: PendingNotice[]) => void {
  const contextKeyOf = contextKeyMemo();
  const enqueue = (notices: PendingNotice[]) => {
    for (const n of notices) {
      // Another gateway runs this watcher: it queues the notice (its shared-database poll).
      if (!deps.ownership.owns(n.watcher)) continue;
      const entry: NoticeEntry = {
        text: noticeText(n.target, n.changesSince),
        contextKey: contextKeyOf(n.target),
      };
      deps.queues.enqueue(n.watcher, entry);
      // A missed or deduplicated entry still asks for a wake: the watcher has something pending.
      deps.waker.request(n.watcher, 'notice');
    }
  };
  return (notices) => {
    if (notices.length > 0) deps.afterCommit(() => enqueue(notices));
  };
}

/** Retention: run at the sweep, on request, and from an append once PRUNE_INTERVAL_MS passed. */
function retention(deps: StateCoreDeps) {
  const pruneTx = createPruner(deps.db);
  let lastPruneAt = Number.NEGATIVE_INFINITY;
  const run = () => {
    const t = deps.now();
    // IMMEDIATE: a deferred transaction that reads and then writes fails at once (SQLITE_BUSY,
    // no busy wait) when another gateway on the database commits in between.
    const result = pruneTx.immediate(t);
    lastPruneAt = t;
    if (result.expiredEvents || result.cappedEvents || result.expiredCursors)
      deps.logger.info('state: pruned', { ...result });
  };
  return {
    run,
    /** After an append: prunes when due; a failure is logged, never the append's. */
    whenDue() {
      if (deps.now() - lastPruneAt < PRUNE_INTERVAL_MS) return;
      try {
        run();
      } catch (err) {
        deps.logger.warn('state: prune failed', { error: String(err) });
      }
    },
  };
}

const appendFailure = (input: RecordInput, err: unknown) => ({
  sessionKey: typeof input?.sessionKey === 'string' ? input.sessionKey.slice(0, 512) : undefined,
  kind: input?.kind,
  error: err instanceof Error ? err.message : String(err),
});

/** Cursors go with a reset watcher, or with a deleted session (watcher and target alike). */
function cursorRemovals(repo: StateRepo) {
  return {
    removeCursorsHeldBy(watcher: string) {
      repo.deleteHeldBy(parseSessionKey(watcher).key);
    },
    removeSession(sessionKey: string, agentId: string) {
      const key = parseSessionKey(sessionKey).key;
      repo.deleteSessionLog(key, agentId);
      repo.deleteHeldBy(key);
      repo.deleteOnTarget(key);
    },
  };
}

export function createStateCore(deps: StateCoreDeps): StateCore {
  const { db, now, logger, queues, emit } = deps;
  const repo = createStateRepo(db);
  const cache = createLogCache(db);
  const prune = retention(deps);
  const deliver = noticeDelivery(deps);

  const appendTx = db.transaction((r: NormalisedRecord) => appendRecord(repo, r, now));
  const acknowledgeTx = db.transaction((watcher: string, targets: string[]) => {
    deps.ownership.fence(watcher); // refused once another gateway runs the watcher
    return acknowledgeCursors(repo, watcher, targets, now());
  });
  // The start-up sweep (every watcher this gateway runs), or a takeover's (the watchers taken over).
  const sweepTx = db.transaction((only?: Set<string>) =>
    pendingNotices(repo, (w) => (only ? only.has(w) : deps.ownership.owns(w)) && deps.sessionExists(w)),
  );

  const shared = createSharedDbPoller(db, deliver, (watcher) => deps.ownership.holds(watcher));
  const reads = stateReads(repo, cache, deps);

  return {
    ...reads,
    ...cursorRemovals(repo),
    record(input: RecordInput) {
      try {
        const r = normaliseRecord(input, now());
        const result = cache.own(() => appendTx.immediate(r));
        if (!result.created) return result.event;
        if (!db.inTransaction) cache.appended(r.sessionKey, r.agentId, result.event);
        emit({ type: 'state:event', sessionKey: r.sessionKey, agentId: r.agentId, event: result.event });
        for (const w of result.cursorsTouched)
          emit({ type: 'cursor:changed', watcher: w, target: r.sessionKey });
        deliver(result.notices);
        prune.whenDue();
        return result.event;
      } catch (err) {
        logger.warn('state: append failed', appendFailure(input, err));
        return undefined;
      }
    },

    registerWatch(watcher, target, opts) {
      const w = parseSessionKey(watcher);
      const t = parseSessionKey(target);
      if (w.kind === 'bare' || t.kind === 'bare' || w.key === t.key) return false;
      const version = reads.version(t.key, opts?.targetAgentId);
      // Starts at the target's current version: earlier history never produces a notice; an
      // existing cursor is left exactly as it is (pending state is never clobbered).
      const cursor = { last_seen: version, notified: version, material: version, updated_at: now() };
      if (repo.insertCursorIfMissing({ watcher_key: w.key, target_key: t.key, ...cursor }))
        emit({ type: 'cursor:changed', watcher: w.key, target: t.key });
      return true;
    },
    acknowledge(watcher, targets) {
      const w = parseSessionKey(watcher).key;
      const keys = targets.map((t) => parseSessionKey(t).key);
      const reopened = acknowledgeTx.immediate(w, keys);
      for (const t of keys) emit({ type: 'cursor:changed', watcher: w, target: t });
      deliver(reopened);
    },
    sweep() {
      deliver(sweepTx.immediate());
      prune.run();
    },
    prune: () => prune.run(),
    pollShared() {
      const change = deps.ownership.poll();
      if (change.claimed.length || change.lost.length) {
        deps.onOwnershipChange?.(change);
        for (const key of change.lost) queues.clear(key);
        // A takeover is a restart for those watchers: every pending cursor gets its notice again.
        if (change.claimed.length) deliver(sweepTx.immediate(new Set(change.claimed)));
      }
      return shared.poll();
    },
  };
}
