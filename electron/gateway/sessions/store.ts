// The session registry (owner of `sessions`): key (one session per key), agent id, parent, label.
import type { SessionInfo } from '../../../shared/domain';
import { normalizeSessionKey, parseSessionKey } from '../../../shared/session-keys';
import type { Db } from '../db/open';
import { invalidArgument } from '../errors';
import { oneLine, resolveKey } from '../state/record-input';

/**
 * A sessions row as an array, in COLUMNS order. Rows are read raw: the fleet snapshot lists every
 * session, and better-sqlite3 builds an array for 10,000 rows in about half the time of objects.
 */
type SessionDbRow = [
  key: string,
  agentId: string,
  createdAt: number,
  updatedAt: number,
  parentKey: string | null,
  label: string | null,
  cwd: string | null,
  archived: number,
  source: string | null,
];
const COLUMNS = 'key, agent_id, created_at, updated_at, parent_key, label, cwd, archived, source';

export const LABEL_MAX_CHARS = 200;

export interface NewSession {
  key: string;
  agentId?: string;
  parentKey?: string;
  label?: string;
  /** The working folder (an absolute path the caller checked). */
  cwd?: string;
  /** An adopted session's upstream source (the tool's transcript file or database). */
  source?: string;
}

function toInfo(r: SessionDbRow): SessionInfo {
  const info: SessionInfo = { key: r[0], agentId: r[1], createdAt: r[2], updatedAt: r[3] };
  if (r[4] !== null) info.parentKey = r[4];
  if (r[5] !== null) info.label = r[5];
  if (r[6] !== null) info.cwd = r[6];
  if (r[7] === 1) info.archived = true;
  if (r[8] !== null) info.source = r[8];
  return info;
}

function statements(db: Db) {
  return {
    get: db
      .prepare<[string, string], SessionDbRow>(
        `SELECT ${COLUMNS} FROM sessions WHERE key = ? AND agent_id = ?`,
      )
      .raw(),
    anyByKey: db
      .prepare<[string], SessionDbRow>(
        `SELECT ${COLUMNS} FROM sessions WHERE key = ? ORDER BY agent_id LIMIT 1`,
      )
      .raw(),
    list: db.prepare<[], SessionDbRow>(`SELECT ${COLUMNS} FROM sessions ORDER BY created_at, key`).raw(),
    // A superset of the adopted sessions (the agent part of a GLOB may hold ':'), in list order.
    adopted: db
      .prepare<[], SessionDbRow>(
        `SELECT ${COLUMNS} FROM sessions WHERE key GLOB 'agent:*:adopted:*' ORDER BY created_at, key`,
      )
      .raw(),
    children: db
      .prepare<[string], SessionDbRow>(
        `SELECT ${COLUMNS} FROM sessions WHERE parent_key = ? ORDER BY created_at`,
      )
      .raw(),
    insert: db.prepare(
      `INSERT INTO sessions (key, agent_id, parent_key, label, cwd, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (key, agent_id) DO UPDATE SET parent_key = coalesce(excluded.parent_key, parent_key),
         label = coalesce(excluded.label, label), cwd = coalesce(excluded.cwd, cwd),
         source = coalesce(excluded.source, source), updated_at = excluded.updated_at`,
    ),
    hasParent: db.prepare<[string, string], { one: number }>(
      `SELECT 1 AS one FROM sessions WHERE key = ? AND agent_id = ? AND parent_key IS NOT NULL`,
    ),
    remove: db.prepare(`DELETE FROM sessions WHERE key = ? AND agent_id = ?`),
    archive: db.prepare(`UPDATE sessions SET archived = ?, updated_at = ? WHERE key = ? AND agent_id = ?`),
    detachChildren: db.prepare(`UPDATE sessions SET parent_key = NULL WHERE parent_key = ?`),
  };
}

/** A new session's parent and label, checked like any input. */
function checkedParentAndLabel(input: NewSession): { parent: string | null; label: string | null } {
  if (
    input.parentKey !== undefined &&
    (typeof input.parentKey !== 'string' || input.parentKey.length > 512)
  ) {
    throw new Error('parentKey must be a string of at most 512 characters');
  }
  if (input.label !== undefined && typeof input.label !== 'string') throw new Error('label must be a string');
  return {
    parent: input.parentKey ? normalizeSessionKey(input.parentKey) : null,
    label: input.label === undefined ? null : oneLine(input.label, LABEL_MAX_CHARS),
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;

export function createSessionStore(db: Db, now: () => number) {
  const s = statements(db);
  return {
    create(input: NewSession): SessionInfo {
      if (!input || typeof input !== 'object') throw new Error('session input must be an object');
      const k = resolveKey(input.key, input.agentId);
      const { parent, label } = checkedParentAndLabel(input);
      // A key names one session: a bare key (e.g. `global`) is registered for one agent.
      const owner = s.anyByKey.get(k.key);
      if (owner && owner[1] !== k.agentId)
        throw invalidArgument(`session key "${k.key}" is registered for agent "${owner[1]}"`);
      for (const field of ['cwd', 'source'] as const) {
        const v = input[field];
        if (v !== undefined && (typeof v !== 'string' || v.length > 4096))
          throw new Error(`${field} must be a string of at most 4096 characters`);
      }
      const t = now();
      s.insert.run(k.key, k.agentId, parent, label, input.cwd ?? null, input.source ?? null, t, t);
      return toInfo(s.get.get(k.key, k.agentId)!);
    },
    get(key: string, agentId?: string): SessionInfo | undefined {
      if (typeof key !== 'string') return undefined;
      const parsed = parseSessionKey(key);
      if (parsed.agentId) {
        const row = s.get.get(parsed.key, parsed.agentId);
        return row ? toInfo(row) : undefined;
      }
      const row = agentId ? s.get.get(parsed.key, agentId.toLowerCase()) : s.anyByKey.get(parsed.key);
      return row ? toInfo(row) : undefined;
    },
    list: (): SessionInfo[] => s.list.all().map(toInfo),
    listAdopted: (): SessionInfo[] =>
      s.adopted
        .all()
        .filter((r) => parseSessionKey(r[0]).kind === 'adopted')
        .map(toInfo),
    children: (parentKey: string): SessionInfo[] =>
      s.children.all(normalizeSessionKey(parentKey)).map(toInfo),
    hasParent: (key: string, agentId: string): boolean => s.hasParent.get(key, agentId) !== undefined,
    /** Deletes the row; its transcript, goal, runs and upstream link go with it (ON DELETE CASCADE). */
    remove(key: string, agentId: string): boolean {
      return s.remove.run(key, agentId).changes > 0;
    },
    /** Hides (or shows again) a session in the fleet tree; false when there is no such session. */
    setArchived(key: string, agentId: string, archived: boolean): boolean {
      return s.archive.run(archived ? 1 : 0, now(), key, agentId).changes > 0;
    },
    /** Children of a deleted session lose their parent link (nothing is recorded for it). */
    detachChildren(parentKey: string): void {
      s.detachChildren.run(parentKey);
    },
  };
}
