// Reading OpenCode's storage. Current versions keep one SQLite database (read here through the
// providers' read-only query interface, next to a live -wal file); older versions keep JSON files
// under storage/. The database is read directly instead of through `opencode db`: same rows, no
// process spawn.
import path from 'node:path';
import type { Located, SourceRef } from '../provider';
import { isNotFound, readAt, type CatalogFs } from '../kit/fsio';
import { num, obj, str } from '../kit/rules';
import type { SqliteDb } from '../kit/sqlite';
import { listDir, oneLine, parseRow } from '../kit/windows';
import { ocPart, type OcMessage } from './rules';

export type DbRef = SourceRef & { kind: 'opencode-db'; db: string; sessionId: string };
export type JsonRef = SourceRef & {
  kind: 'opencode-json';
  dataDir: string;
  projectId: string;
  sessionId: string;
};

export function isDbRef(ref: SourceRef): ref is DbRef {
  return ref.kind === 'opencode-db' && typeof ref.db === 'string' && typeof ref.sessionId === 'string';
}

export function isJsonRef(ref: SourceRef): ref is JsonRef {
  return (
    ref.kind === 'opencode-json' &&
    typeof ref.dataDir === 'string' &&
    typeof ref.projectId === 'string' &&
    typeof ref.sessionId === 'string'
  );
}

export interface OcPaths {
  dataDir: string;
  db?: string;
}

/** `root` is the data dir (default ~/.local/share/opencode) or the database file itself. */
export function opencodePaths(root: string, cfs: CatalogFs): OcPaths {
  if (root.endsWith('.db')) return { dataDir: path.dirname(root), db: root };
  const names = listDir(cfs, root)
    .filter((d) => d.file && /^opencode(-[\w.-]+)?\.db$/.test(d.name))
    .map((d) => d.name);
  const pick = names.includes('opencode.db') ? 'opencode.db' : names.sort()[0];
  return { dataDir: root, ...(pick ? { db: path.join(root, pick) } : {}) };
}

function columns(db: SqliteDb, table: string): Set<string> {
  return new Set(db.all(`PRAGMA table_info(${table})`).map((c) => String(c.name)));
}

/** Main sessions of a database (or the one with id `only`), newest first. */
export function dbSessions(db: SqliteDb, file: string, only?: string): Located[] {
  const cols = columns(db, 'session');
  const where = [
    cols.has('parent_id') ? 's.parent_id IS NULL' : '1',
    cols.has('time_archived') ? 's.time_archived IS NULL' : '1',
    only !== undefined ? 's.id = ?' : '1',
  ].join(' AND ');
  const rows = db.all(
    `SELECT s.id, s.title, s.directory, s.time_created, s.time_updated,
       (SELECT COALESCE(SUM(length(m.data)), 0) FROM message m WHERE m.session_id = s.id) +
       (SELECT COALESCE(SUM(length(p.data)), 0) FROM part p WHERE p.session_id = s.id) AS size
     FROM session s WHERE ${where} ORDER BY s.time_updated DESC, s.id DESC`,
    ...(only !== undefined ? [only] : []),
  );
  return rows.map((r) => {
    const id = String(r.id);
    const cwd = str(r.directory);
    const created = num(r.time_created);
    const updated = num(r.time_updated);
    return {
      entry: {
        provider: 'opencode' as const,
        threadId: id,
        title: oneLine(str(r.title) || id),
        ...(cwd ? { cwd } : {}),
        ...(created !== undefined ? { createdAt: created } : {}),
        ...(updated !== undefined ? { lastActivityAt: updated } : {}),
        sizeBytes: num(r.size) ?? 0,
      },
      ref: { kind: 'opencode-db', db: file, sessionId: id },
    };
  });
}

function readJson(cfs: CatalogFs, file: string): Record<string, unknown> | undefined {
  const size = cfs.statSync(file).size;
  return parseRow(readAt(cfs, file, 0, size).toString('utf8'));
}

/** Main sessions of the JSON layout (or the one with id `only`). */
export function jsonSessions(cfs: CatalogFs, dataDir: string, only?: string): Located[] {
  const base = path.join(dataDir, 'storage', 'session');
  const out: Located[] = [];
  for (const p of listDir(cfs, base)) {
    if (!p.dir) continue;
    for (const f of listDir(cfs, path.join(base, p.name))) {
      if (!f.file || !f.name.endsWith('.json')) continue;
      const id = f.name.slice(0, -5);
      if (only !== undefined && id !== only) continue;
      const file = path.join(base, p.name, f.name);
      let s: Record<string, unknown> | undefined;
      try {
        s = readJson(cfs, file);
      } catch {
        continue;
      }
      if (!s || str(s.parentID)) continue;
      const time = obj(s.time);
      const title = str(s.title);
      const cwd = str(s.directory);
      out.push({
        entry: {
          provider: 'opencode',
          threadId: str(s.id) ?? id,
          title: oneLine(title || id),
          ...(cwd ? { cwd } : {}),
          ...(num(time?.created) !== undefined ? { createdAt: num(time?.created) } : {}),
          ...(num(time?.updated) !== undefined ? { lastActivityAt: num(time?.updated) } : {}),
          sizeBytes: cfs.statSync(file).size,
        },
        ref: { kind: 'opencode-json', dataDir, projectId: p.name, sessionId: id },
      });
    }
  }
  return out;
}

export function jsonSessionExists(cfs: CatalogFs, ref: JsonRef): boolean {
  try {
    cfs.statSync(path.join(ref.dataDir, 'storage', 'session', ref.projectId, `${ref.sessionId}.json`));
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

/** Every message of a JSON-layout session, oldest first, with the parts of `withParts` roles. */
export function jsonMessages(
  cfs: CatalogFs,
  dataDir: string,
  sessionId: string,
  allParts = false,
): OcMessage[] {
  const dir = path.join(dataDir, 'storage', 'message', sessionId);
  let names: string[];
  try {
    names = cfs
      .readdirSync(dir, { withFileTypes: true })
      .map((d) => d.name)
      .filter((n) => n.endsWith('.json'));
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
  const out: OcMessage[] = [];
  for (const n of names) {
    const m = readJson(cfs, path.join(dir, n));
    if (!m) continue;
    const id = str(m.id) ?? n.slice(0, -5);
    const role = str(m.role) ?? '';
    const partDir = path.join(dataDir, 'storage', 'part', id);
    const parts: ReturnType<typeof ocPart>[] = [];
    if (role === 'user' || allParts) {
      let pn: string[] = [];
      try {
        pn = cfs
          .readdirSync(partDir, { withFileTypes: true })
          .map((d) => d.name)
          .filter((x) => x.endsWith('.json'))
          .sort();
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      for (const x of pn) parts.push(ocPart(readJson(cfs, path.join(partDir, x))));
    }
    out.push({ id, createdAt: num(obj(m.time)?.created) ?? 0, role, parts });
  }
  return out.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

type MsgRow = { id: string; time_created: number; data: string };

/** Loads a message row with its parts (user messages always; others when `allParts`). */
export function dbMessage(db: SqliteDb, r: MsgRow, allParts: boolean): OcMessage {
  const role = str(parseRow(r.data)?.role) ?? '';
  const parts =
    role === 'user' || allParts
      ? db
          .all('SELECT data FROM part WHERE message_id = ? ORDER BY id', r.id)
          .map((p) => ocPart(parseRow(String(p.data))))
      : [];
  return { id: r.id, createdAt: r.time_created, role, parts };
}

export function asMsgRows(rows: Record<string, unknown>[]): MsgRow[] {
  return rows.map((r) => ({ id: String(r.id), time_created: Number(r.time_created), data: String(r.data) }));
}

/** Whether the database holds the session. */
export function dbHasSession(db: SqliteDb, sessionId: string): boolean {
  return db.get('SELECT 1 AS one FROM session WHERE id = ?', sessionId) !== undefined;
}

/** Up to `limit` messages after (createdAt, id), oldest first. */
export function dbMessagesAfter(
  db: SqliteDb,
  sessionId: string,
  after: { createdAt: number; id: string },
  limit: number,
): MsgRow[] {
  return asMsgRows(
    db.all(
      `SELECT id, time_created, data FROM message WHERE session_id = ? AND (time_created > ? OR (time_created = ? AND id > ?))
       ORDER BY time_created, id LIMIT ${Math.trunc(limit)}`,
      sessionId,
      after.createdAt,
      after.createdAt,
      after.id,
    ),
  );
}

/** The last `limit` user messages before (createdAt, id), oldest first. */
export function dbUserMessagesBefore(
  db: SqliteDb,
  sessionId: string,
  before: { createdAt: number; id: string },
  limit: number,
): MsgRow[] {
  return asMsgRows(
    db.all(
      `SELECT id, time_created, data FROM message WHERE session_id = ? AND json_extract(data, '$.role') = 'user'
       AND (time_created < ? OR (time_created = ? AND id < ?)) ORDER BY time_created DESC, id DESC LIMIT ?`,
      sessionId,
      before.createdAt,
      before.createdAt,
      before.id,
      limit,
    ),
  ).reverse();
}

/** The session's last `limit` messages, oldest first. */
export function dbLastMessages(db: SqliteDb, sessionId: string, limit: number): MsgRow[] {
  return asMsgRows(
    db.all(
      'SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created DESC, id DESC LIMIT ?',
      sessionId,
      limit,
    ),
  ).reverse();
}

/** The session's last message (its id and time), if any. */
export function dbLastMessage(
  db: SqliteDb,
  sessionId: string,
): { id: string; createdAt: number } | undefined {
  const r = db.get(
    'SELECT id, time_created FROM message WHERE session_id = ? ORDER BY time_created DESC, id DESC LIMIT 1',
    sessionId,
  );
  return r ? { id: String(r.id), createdAt: Number(r.time_created) } : undefined;
}
