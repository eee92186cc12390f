// SQL for the signal log, heads and watch cursors: prepared once, plain functions over rows.
import type { Db } from '../db/open';
import type { NormalisedRecord } from './record-input';
import type { ActorType, EventKind, StateEvent, StateEventRow } from '../../../shared/domain';

interface EventDbRow {
  sequence: number;
  session_key: string;
  agent_id: string;
  kind: EventKind;
  actor_type: ActorType;
  actor_id: string | null;
  run_id: string | null;
  occurred_at: number;
  summary: string;
  payload: string | null;
}

export interface CursorDbRow {
  watcher_key: string;
  target_key: string;
  last_seen: number;
  notified: number;
  material: number;
  updated_at: number;
}

interface HolderRow {
  watcher_key: string;
  last_seen: number;
  notified: number;
  updated_at: number;
}

export interface HeadDbRow {
  last_sequence: number;
  pruned_max_sequence: number;
}

const EVENT_COLUMNS =
  'sequence, session_key, agent_id, kind, actor_type, actor_id, run_id, occurred_at, summary, payload';
const PAGE_COLUMNS = 'sequence, kind, actor_type, actor_id, run_id, occurred_at, summary, payload';
type PageRow = [number, EventKind, ActorType, string | null, string | null, number, string, string | null];

/**
 * The one place a StateEvent is shaped: the contract's keys in its order, the optional ones only
 * when present (null and undefined both mean absent).
 */
export function stateEvent(
  sequence: number,
  kind: EventKind,
  actorType: ActorType,
  occurredAt: number,
  summary: string,
  actorId: string | null | undefined,
  runId: string | null | undefined,
  payload: Record<string, unknown> | undefined,
): StateEvent {
  const event: StateEvent = { sequence, kind, actorType, occurredAt, summary };
  if (actorId != null) event.actorId = actorId;
  if (runId != null) event.runId = runId;
  if (payload !== undefined) event.payload = payload;
  return event;
}

/** A StateEvent from a raw page row (PAGE_COLUMNS order). */
export const pageRowToEvent = (r: PageRow): StateEvent =>
  stateEvent(r[0], r[1], r[2], r[5], r[6], r[3], r[4], r[7] === null ? undefined : parsePayload(r[7]));

// Most payloads repeat (`{"channel":"desktop"}`, `{"outcome":"error"}`): a flat one is parsed once
// and copied after; a nested one is parsed every time (a fresh deep copy for every caller).
const flatPayloads = new Map<string, Record<string, unknown>>();

function parsePayload(text: string): Record<string, unknown> {
  const known = flatPayloads.get(text);
  if (known) return { ...known };
  const parsed = JSON.parse(text) as Record<string, unknown>;
  if (Object.values(parsed).every((v) => typeof v !== 'object' || v === null)) {
    if (flatPayloads.size >= 1024) flatPayloads.clear();
    flatPayloads.set(text, { ...parsed });
  }
  return parsed;
}

export const toStateEvent = (row: EventDbRow): StateEvent =>
  stateEvent(
    row.sequence,
    row.kind,
    row.actor_type,
    row.occurred_at,
    row.summary,
    row.actor_id,
    row.run_id,
    row.payload === null ? undefined : (JSON.parse(row.payload) as Record<string, unknown>),
  );

export function toStateEventRow(row: EventDbRow): StateEventRow {
  return { ...toStateEvent(row), sessionKey: row.session_key, agentId: row.agent_id };
}

function eventStatements(db: Db) {
  return {
    insertEvent: db.prepare<unknown[]>(
      `INSERT INTO session_state_events (session_key, agent_id, kind, actor_type, actor_id, run_id, occurred_at, summary, payload, dedupe_key)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    eventByDedupe: db.prepare<[string], EventDbRow>(
      `SELECT ${EVENT_COLUMNS} FROM session_state_events WHERE dedupe_key = ?`,
    ),
    // Arrays of the eight columns a StateEvent needs: decoding rows as objects costs three times
    // as much, and the session is known (docs/perf.md).
    eventsAfter: db
      .prepare<[string, string, number, number], PageRow>(
        `SELECT ${PAGE_COLUMNS} FROM session_state_events
       WHERE session_key = ? AND agent_id = ? AND sequence > ? ORDER BY sequence LIMIT ?`,
      )
      .raw(),
    eventsBefore: db.prepare<[string, string, number, number], EventDbRow>(
      `SELECT ${EVENT_COLUMNS} FROM session_state_events
       WHERE session_key = ? AND agent_id = ? AND sequence < ? ORDER BY sequence DESC LIMIT ?`,
    ),
    earliest: db.prepare<[string, string], { sequence: number }>(
      `SELECT sequence FROM session_state_events WHERE session_key = ? AND agent_id = ? ORDER BY sequence LIMIT 1`,
    ),
    head: db.prepare<[string, string], HeadDbRow>(
      `SELECT last_sequence, pruned_max_sequence FROM session_state_heads WHERE session_key = ? AND agent_id = ?`,
    ),
    allHeads: db
      .prepare<[], [string, string, number]>(
        `SELECT session_key, agent_id, last_sequence FROM session_state_heads`,
      )
      .raw(),
    upsertHead: db.prepare(
      `INSERT INTO session_state_heads (session_key, agent_id, last_sequence) VALUES (?, ?, ?)
       ON CONFLICT (session_key, agent_id) DO UPDATE SET last_sequence = max(last_sequence, excluded.last_sequence)`,
    ),
    deleteEvents: db.prepare(`DELETE FROM session_state_events WHERE session_key = ? AND agent_id = ?`),
    deleteHead: db.prepare(`DELETE FROM session_state_heads WHERE session_key = ? AND agent_id = ?`),
  };
}

function cursorStatements(db: Db) {
  return {
    cursor: db.prepare<[string, string], CursorDbRow>(
      `SELECT * FROM session_watch_cursors WHERE watcher_key = ? AND target_key = ?`,
    ),
    cursorsOnTarget: db.prepare<[string], CursorDbRow>(
      `SELECT * FROM session_watch_cursors WHERE target_key = ?`,
    ),
    cursorsHeldBy: db.prepare<[string], CursorDbRow>(
      `SELECT * FROM session_watch_cursors WHERE watcher_key = ?`,
    ),
    hasWatcher: db.prepare<[string], { one: number }>(
      `SELECT 1 AS one FROM session_watch_cursors WHERE target_key = ? LIMIT 1`,
    ),
    upsertCursor: db.prepare(
      `INSERT INTO session_watch_cursors (watcher_key, target_key, last_seen, notified, material, updated_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (watcher_key, target_key) DO UPDATE SET last_seen = excluded.last_seen,
         notified = excluded.notified, material = excluded.material, updated_at = excluded.updated_at`,
    ),
    insertCursorIfMissing: db.prepare(
      `INSERT INTO session_watch_cursors (watcher_key, target_key, last_seen, notified, material, updated_at)
       VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (watcher_key, target_key) DO NOTHING`,
    ),
    // The fan-out of a notify-eligible event to the cursors on its target, except the actor's (and
    // a target's own): three statements whatever the number of watchers. Each sets only the columns
    // that change, so an index is rewritten only when its key or condition really changes.
    openNotices: db.prepare(
      `UPDATE session_watch_cursors SET notified = ?
       WHERE target_key = ? AND watcher_key IS NOT ? AND watcher_key <> target_key AND notified = last_seen`,
    ),
    // Read first (no RETURNING: SQLite would buffer the rows in a temporary table), so that the
    // other two statements run only when a row needs them.
    holders: db.prepare<[string, string | null], HolderRow>(
      `SELECT watcher_key, last_seen, notified, updated_at FROM session_watch_cursors
       WHERE target_key = ? AND watcher_key IS NOT ? AND watcher_key <> target_key ORDER BY watcher_key`,
    ),
    raiseMaterial: db.prepare(
      `UPDATE session_watch_cursors SET material = ?
       WHERE target_key = ? AND watcher_key IS NOT ? AND watcher_key <> target_key`,
    ),
    touchCursors: db.prepare(
      `UPDATE session_watch_cursors SET updated_at = ?
       WHERE target_key = ? AND watcher_key IS NOT ? AND watcher_key <> target_key
         AND (? - updated_at >= ? OR ? < updated_at)`,
    ),
    setNotified: db.prepare(
      `UPDATE session_watch_cursors SET notified = ? WHERE watcher_key = ? AND target_key = ?`,
    ),
    // Pending is M > L; the index holds N > L, the same rows (migration 007).
    // Arrays, not objects: the sweep may read 100,000 of them at start-up.
    pendingCursors: db
      .prepare<[], [string, string, number, number, number]>(
        `SELECT watcher_key, target_key, last_seen, notified, material FROM session_watch_cursors
       WHERE material > last_seen AND notified > last_seen`,
      )
      .raw(),
    deleteHeldBy: db.prepare(`DELETE FROM session_watch_cursors WHERE watcher_key = ?`),
    deleteOnTarget: db.prepare(`DELETE FROM session_watch_cursors WHERE target_key = ?`),
  };
}

/** The signal log and its heads. */
function eventLog(db: Db) {
  const s = eventStatements(db);
  return {
    insertEvent(e: Omit<NormalisedRecord, 'bare' | 'watchers'>): number {
      const { lastInsertRowid } = s.insertEvent.run(
        e.sessionKey,
        e.agentId,
        e.kind,
        e.actorType,
        e.actorId ?? null,
        e.runId ?? null,
        e.occurredAt,
        e.summary,
        e.payload ?? null,
        e.dedupeKey ?? null,
      );
      return Number(lastInsertRowid);
    },
    eventByDedupe: (key: string) => s.eventByDedupe.get(key),
    eventsAfter: (key: string, agentId: string, after: number, limit: number) =>
      (s.eventsAfter.all(key, agentId, after, limit) as unknown as PageRow[]).map(pageRowToEvent),
    eventsBefore: (key: string, agentId: string, before: number, limit: number) =>
      s.eventsBefore.all(key, agentId, before, limit),
    earliest: (key: string, agentId: string) => s.earliest.get(key, agentId)?.sequence,
    head: (key: string, agentId: string) => s.head.get(key, agentId),
    allHeads: () => s.allHeads.all() as unknown as [string, string, number][],
    upsertHead: (key: string, agentId: string, seq: number) => void s.upsertHead.run(key, agentId, seq),
    /** A deleted session's log and head (its sequences are never reused: AUTOINCREMENT). */
    deleteSessionLog(key: string, agentId: string): void {
      s.deleteEvents.run(key, agentId);
      s.deleteHead.run(key, agentId);
    },
  };
}

/** The watch cursors: who has seen how far of whom. */
function watchCursors(db: Db) {
  const s = cursorStatements(db);
  return {
    cursor: (watcher: string, target: string) => s.cursor.get(watcher, target),
    cursorsOnTarget: (target: string) => s.cursorsOnTarget.all(target),
    cursorsHeldBy: (watcher: string) => s.cursorsHeldBy.all(watcher),
    hasWatcher: (target: string) => s.hasWatcher.get(target) !== undefined,
    upsertCursor: (c: CursorDbRow) =>
      void s.upsertCursor.run(c.watcher_key, c.target_key, c.last_seen, c.notified, c.material, c.updated_at),
    insertCursorIfMissing: (c: CursorDbRow) =>
      s.insertCursorIfMissing.run(
        c.watcher_key,
        c.target_key,
        c.last_seen,
        c.notified,
        c.material,
        c.updated_at,
      ).changes > 0,
    /**
     * A notify-eligible event at `seq` on `target`: for every cursor on it but the actor's,
     * N := (N == L) ? seq : N, M := seq, and updated_at moves when `touchMs` old. Returns each
     * advanced watcher with its L, in watcher order.
     */
    advanceCursors(target: string, actor: string | null, seq: number, now: number, touchMs: number) {
      const rows = s.holders.all(target, actor);
      if (rows.length === 0) return rows;
      if (rows.some((c) => c.notified === c.last_seen)) s.openNotices.run(seq, target, actor);
      s.raiseMaterial.run(seq, target, actor);
      if (rows.some((c) => now - c.updated_at >= touchMs || now < c.updated_at))
        s.touchCursors.run(now, target, actor, now, touchMs, now);
      return rows;
    },
    setNotified: (watcher: string, target: string, notified: number) =>
      void s.setNotified.run(notified, watcher, target),
    /** [watcher, target, L, N, M] of every pending cursor. */
    pendingCursors: () => s.pendingCursors.all() as unknown as [string, string, number, number, number][],
    deleteHeldBy: (watcher: string) => s.deleteHeldBy.run(watcher).changes,
    deleteOnTarget: (target: string) => s.deleteOnTarget.run(target).changes,
  };
}

export type StateRepo = ReturnType<typeof createStateRepo>;

export function createStateRepo(db: Db) {
  return { ...eventLog(db), ...watchCursors(db) };
}

/** PRAGMA data_version of this connection: it moves when another connection commits. */
export function dataVersionOf(db: Db): () => number {
  const read = db.prepare<[], number>('PRAGMA data_version').pluck();
  return () => read.get()!;
}

/**
 * Calls `written` after every write to the log or the heads made on this connection, through
 * temporary triggers calling a function named `fn` (unique per connection and cache).
 */
export function onLogWrites(db: Db, fn: string, written: () => void): void {
  db.function(fn, { deterministic: false }, () => {
    written();
    return null;
  });
  for (const table of ['session_state_events', 'session_state_heads'])
    for (const op of ['INSERT', 'UPDATE', 'DELETE'])
      db.exec(
        `CREATE TEMP TRIGGER IF NOT EXISTS ${fn}_${table}_${op.toLowerCase()} AFTER ${op} ON main.${table}
         BEGIN SELECT ${fn}(); END`,
      );
}

/** What another gateway on the same database committed: the reads of state/shared-db.ts. */
export function sharedLogReads(db: Db, kinds: readonly string[]) {
  const s = {
    maxSeq: db.prepare<[], { m: number | null }>(`SELECT max(sequence) AS m FROM session_state_events`),
    targets: db.prepare<unknown[], { session_key: string }>(
      `SELECT DISTINCT session_key FROM session_state_events NOT INDEXED
       WHERE sequence > ? AND sequence <= ? AND kind IN (${kinds.map(() => '?').join(', ')})`,
    ),
    pendingOn: db.prepare<[string], { watcher_key: string; last_seen: number }>(
      `SELECT watcher_key, last_seen FROM session_watch_cursors WHERE target_key = ? AND material > last_seen`,
    ),
  };
  return {
    maxSequence: (): number => s.maxSeq.get()?.m ?? 0,
    /** Sessions with a notify-eligible event in (after, upTo]. */
    targetsBetween: (after: number, upTo: number): string[] =>
      s.targets.all(after, upTo, ...kinds).map((r) => r.session_key),
    pendingOn: (target: string) => s.pendingOn.all(target),
  };
}
