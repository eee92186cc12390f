// SQL for the signal log, heads and watch cursors: prepared once, plain functions over rows.
import type { Db } from '../db/open';
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

export interface HeadDbRow {
  last_sequence: number;
  pruned_max_sequence: number;
}

const EVENT_COLUMNS =
  'sequence, session_key, agent_id, kind, actor_type, actor_id, run_id, occurred_at, summary, payload';

export function toStateEvent(row: EventDbRow): StateEvent {
  const event: StateEvent = {
    sequence: row.sequence,
    kind: row.kind,
    actorType: row.actor_type,
    occurredAt: row.occurred_at,
    summary: row.summary,
  };
  if (row.actor_id !== null) event.actorId = row.actor_id;
  if (row.run_id !== null) event.runId = row.run_id;
  if (row.payload !== null) event.payload = JSON.parse(row.payload) as Record<string, unknown>;
  return event;
}

export function toStateEventRow(row: EventDbRow): StateEventRow {
  return { ...toStateEvent(row), sessionKey: row.session_key, agentId: row.agent_id };
}

export type StateRepo = ReturnType<typeof createStateRepo>;

export function createStateRepo(db: Db) {
  const s = {
    insertEvent: db.prepare<unknown[], { sequence: number }>(
      `INSERT INTO session_state_events (session_key, agent_id, kind, actor_type, actor_id, run_id, occurred_at, summary, payload, dedupe_key)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING sequence`,
    ),
    eventByDedupe: db.prepare<[string], EventDbRow>(
      `SELECT ${EVENT_COLUMNS} FROM session_state_events WHERE dedupe_key = ?`,
    ),
    eventsAfter: db.prepare<[string, string, number, number], EventDbRow>(
      `SELECT ${EVENT_COLUMNS} FROM session_state_events
       WHERE session_key = ? AND agent_id = ? AND sequence > ? ORDER BY sequence LIMIT ?`,
    ),
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
    upsertHead: db.prepare(
      `INSERT INTO session_state_heads (session_key, agent_id, last_sequence) VALUES (?, ?, ?)
       ON CONFLICT (session_key, agent_id) DO UPDATE SET last_sequence = max(last_sequence, excluded.last_sequence)`,
    ),
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
    updateCursor: db.prepare(
      `UPDATE session_watch_cursors SET last_seen = ?, notified = ?, material = ?, updated_at = ?
       WHERE watcher_key = ? AND target_key = ?`,
    ),
    setNotified: db.prepare(
      `UPDATE session_watch_cursors SET notified = ? WHERE watcher_key = ? AND target_key = ?`,
    ),
    pendingCursors: db.prepare<[], CursorDbRow>(
      `SELECT * FROM session_watch_cursors WHERE material > last_seen`,
    ),
    deleteHeldBy: db.prepare(`DELETE FROM session_watch_cursors WHERE watcher_key = ?`),
    deleteEvents: db.prepare(`DELETE FROM session_state_events WHERE session_key = ? AND agent_id = ?`),
    deleteHead: db.prepare(`DELETE FROM session_state_heads WHERE session_key = ? AND agent_id = ?`),
    deleteOnTarget: db.prepare(`DELETE FROM session_watch_cursors WHERE target_key = ?`),
  };

  return {
    insertEvent(e: {
      sessionKey: string;
      agentId: string;
      kind: EventKind;
      actorType: ActorType;
      actorId?: string;
      runId?: string;
      occurredAt: number;
      summary: string;
      payload?: string;
      dedupeKey?: string;
    }): number {
      return s.insertEvent.get(
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
      )!.sequence;
    },
    eventByDedupe: (key: string) => s.eventByDedupe.get(key),
    eventsAfter: (key: string, agentId: string, after: number, limit: number) =>
      s.eventsAfter.all(key, agentId, after, limit),
    eventsBefore: (key: string, agentId: string, before: number, limit: number) =>
      s.eventsBefore.all(key, agentId, before, limit),
    earliest: (key: string, agentId: string) => s.earliest.get(key, agentId)?.sequence,
    head: (key: string, agentId: string) => s.head.get(key, agentId),
    upsertHead: (key: string, agentId: string, seq: number) => void s.upsertHead.run(key, agentId, seq),
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
    updateCursor: (
      watcher: string,
      target: string,
      lastSeen: number,
      notified: number,
      material: number,
      at: number,
    ) => void s.updateCursor.run(lastSeen, notified, material, at, watcher, target),
    setNotified: (watcher: string, target: string, notified: number) =>
      void s.setNotified.run(notified, watcher, target),
    pendingCursors: () => s.pendingCursors.all(),
    deleteHeldBy: (watcher: string) => s.deleteHeldBy.run(watcher).changes,
    deleteOnTarget: (target: string) => s.deleteOnTarget.run(target).changes,
    /** A deleted session's log and head (its sequences are never reused: AUTOINCREMENT). */
    deleteSessionLog(key: string, agentId: string): void {
      s.deleteEvents.run(key, agentId);
      s.deleteHead.run(key, agentId);
    },
  };
}
