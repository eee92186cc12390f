// OpenCode discovery and checks. Current versions keep one SQLite database (opened here read-only
// with better-sqlite3, next to a live -wal file); older versions keep JSON files under storage/.
// The database is read directly instead of through `opencode db`: same rows, no process spawn.
import type Database from 'better-sqlite3';
import { openSqlite } from '../db/sqlite';
import path from 'node:path';
import { isNotFound, type CatalogFs } from './fsio';
import { classifyOpencode, ocPart, type OcClassified, type OcMessage } from './opencode-rules';
import type { Located, ProviderCatalog, SourceRef } from './provider';
import { num, obj, str } from './rules';
import { listDir, oneLine, parseRow } from './windows';
import fs from 'node:fs';

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

export function openReadonly(file: string): Database.Database {
  const db = openSqlite(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 1000');
  return db;
}

function columns(db: Database.Database, table: string): Set<string> {
  return new Set((db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name));
}

interface SessionRow {
  id: string;
  title: string | null;
  directory: string | null;
  time_created: number | null;
  time_updated: number | null;
  size: number | null;
}

function dbSessions(file: string, only?: string): Located[] {
  const db = openReadonly(file);
  try {
    const cols = columns(db, 'session');
    const where = [
      cols.has('parent_id') ? 's.parent_id IS NULL' : '1',
      cols.has('time_archived') ? 's.time_archived IS NULL' : '1',
      only !== undefined ? 's.id = @only' : '1',
    ].join(' AND ');
    const rows = db
      .prepare(
        `SELECT s.id, s.title, s.directory, s.time_created, s.time_updated,
           (SELECT COALESCE(SUM(length(m.data)), 0) FROM message m WHERE m.session_id = s.id) +
           (SELECT COALESCE(SUM(length(p.data)), 0) FROM part p WHERE p.session_id = s.id) AS size
         FROM session s WHERE ${where} ORDER BY s.time_updated DESC, s.id DESC`,
      )
      .all(only !== undefined ? { only } : {}) as SessionRow[];
    return rows.map((r) => ({
      entry: {
        provider: 'opencode' as const,
        threadId: r.id,
        title: oneLine(r.title || r.id),
        ...(r.directory ? { cwd: r.directory } : {}),
        ...(r.time_created !== null ? { createdAt: r.time_created } : {}),
        ...(r.time_updated !== null ? { lastActivityAt: r.time_updated } : {}),
        sizeBytes: r.size ?? 0,
      },
      ref: { kind: 'opencode-db' as const, db: file, sessionId: r.id },
    }));
  } finally {
    db.close();
  }
}

function readJson(file: string): Record<string, unknown> | undefined {
  return parseRow(fs.readFileSync(file, 'utf8'));
}

function jsonSessions(cfs: CatalogFs, dataDir: string, only?: string): Located[] {
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
        s = readJson(file);
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

export function opencodeCatalog(root: string, cfs: CatalogFs): ProviderCatalog {
  return {
    provider: 'opencode',
    units() {
      const p = opencodePaths(root, cfs);
      if (p.db) return [p.db];
      return listDir(cfs, path.join(p.dataDir, 'storage', 'session')).length ? [p.dataDir] : [];
    },
    describe(unit) {
      return unit.endsWith('.db') ? dbSessions(unit) : jsonSessions(cfs, unit);
    },
    find(threadId) {
      const p = opencodePaths(root, cfs);
      return (p.db ? dbSessions(p.db, threadId) : jsonSessions(cfs, p.dataDir, threadId))[0];
    },
  };
}

export interface OcMarker {
  messageId: string | null;
  createdAt: number;
}

export type OcOutcome =
  | { kind: 'missing' }
  | { kind: 'inconclusive'; error: unknown }
  | ({ kind: 'activity'; next: OcMarker; changed: boolean } & OcClassified);

const BATCH = 200;

function finish(marker: OcMarker, c: OcClassified): OcOutcome {
  const next = c.last ? { messageId: c.last.id, createdAt: c.last.createdAt } : marker;
  return { kind: 'activity', ...c, next, changed: c.last !== undefined };
}

/** Per-tick reader of one OpenCode database: one read-only connection for all its links. */
export class OpencodeDbReader {
  private db: Database.Database | undefined;
  constructor(private readonly file: string) {}

  probe(sessionId: string, marker: OcMarker, own: { has(key: string): boolean }, now: number): OcOutcome {
    try {
      if (!fs.existsSync(this.file)) return { kind: 'missing' };
      this.db ??= openReadonly(this.file);
      const db = this.db;
      if (!db.prepare('SELECT 1 FROM session WHERE id = ?').get(sessionId)) return { kind: 'missing' };
      const rows = db
        .prepare(
          `SELECT id, time_created, data FROM message WHERE session_id = ? AND (time_created > ? OR (time_created = ? AND id > ?))
           ORDER BY time_created, id LIMIT ${BATCH}`,
        )
        .all(sessionId, marker.createdAt, marker.createdAt, marker.messageId ?? '') as {
        id: string;
        time_created: number;
        data: string;
      }[];
      if (rows.length === 0) return { kind: 'activity', turns: 0, echoes: 0, next: marker, changed: false };
      const partsOf = db.prepare('SELECT data FROM part WHERE message_id = ? ORDER BY id');
      const load = (r: { id: string; time_created: number; data: string }): OcMessage => {
        const role = str(parseRow(r.data)?.role) ?? '';
        const parts =
          role === 'user'
            ? (partsOf.all(r.id) as { data: string }[]).map((p) => ocPart(parseRow(p.data)))
            : [];
        return { id: r.id, createdAt: r.time_created, role, parts };
      };
      const msgs = rows.map(load);
      const before = (
        db
          .prepare(
            `SELECT id, time_created, data FROM message WHERE session_id = ? AND json_extract(data, '$.role') = 'user'
             AND (time_created < ? OR (time_created = ? AND id < ?)) ORDER BY time_created DESC, id DESC LIMIT 3`,
          )
          .all(sessionId, msgs[0]!.createdAt, msgs[0]!.createdAt, msgs[0]!.id) as {
          id: string;
          time_created: number;
          data: string;
        }[]
      )
        .reverse()
        .map(load);
      return finish(marker, classifyOpencode(msgs, before, own, now));
    } catch (err) {
      if (isNotFound(err)) return { kind: 'missing' };
      return { kind: 'inconclusive', error: err };
    }
  }

  close(): void {
    this.db?.close();
    this.db = undefined;
  }
}

function jsonMessages(dataDir: string, sessionId: string): OcMessage[] {
  const dir = path.join(dataDir, 'storage', 'message', sessionId);
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
  const out: OcMessage[] = [];
  for (const n of names) {
    const m = readJson(path.join(dir, n));
    if (!m) continue;
    const id = str(m.id) ?? n.slice(0, -5);
    const role = str(m.role) ?? '';
    const partDir = path.join(dataDir, 'storage', 'part', id);
    const parts: ReturnType<typeof ocPart>[] = [];
    if (role === 'user') {
      let pn: string[] = [];
      try {
        pn = fs
          .readdirSync(partDir)
          .filter((x) => x.endsWith('.json'))
          .sort();
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      for (const x of pn) parts.push(ocPart(readJson(path.join(partDir, x))));
    }
    out.push({ id, createdAt: num(obj(m.time)?.created) ?? 0, role, parts });
  }
  return out.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export function probeOpencodeJson(
  ref: Extract<SourceRef, { kind: 'opencode-json' }>,
  marker: OcMarker,
  own: { has(key: string): boolean },
  now: number,
): OcOutcome {
  try {
    const sessionFile = path.join(ref.dataDir, 'storage', 'session', ref.projectId, `${ref.sessionId}.json`);
    try {
      fs.statSync(sessionFile);
    } catch (err) {
      if (isNotFound(err)) return { kind: 'missing' };
      throw err;
    }
    const all = jsonMessages(ref.dataDir, ref.sessionId);
    const after = (m: OcMessage) =>
      m.createdAt > marker.createdAt || (m.createdAt === marker.createdAt && m.id > (marker.messageId ?? ''));
    const msgs = all.filter(after).slice(0, BATCH);
    if (msgs.length === 0) return { kind: 'activity', turns: 0, echoes: 0, next: marker, changed: false };
    const before = all.filter((m) => !after(m) && m.role === 'user').slice(-3);
    return finish(marker, classifyOpencode(msgs, before, own, now));
  } catch (err) {
    return { kind: 'inconclusive', error: err };
  }
}

/** The baseline marker at adoption: the newest message now. */
export function opencodeBaseline(ref: SourceRef): OcMarker {
  if (ref.kind === 'opencode-db') {
    const db = openReadonly(ref.db);
    try {
      const r = db
        .prepare(
          'SELECT id, time_created FROM message WHERE session_id = ? ORDER BY time_created DESC, id DESC LIMIT 1',
        )
        .get(ref.sessionId) as { id: string; time_created: number } | undefined;
      return r ? { messageId: r.id, createdAt: r.time_created } : { messageId: null, createdAt: 0 };
    } finally {
      db.close();
    }
  }
  if (ref.kind === 'opencode-json') {
    const last = jsonMessages(ref.dataDir, ref.sessionId).pop();
    return last ? { messageId: last.id, createdAt: last.createdAt } : { messageId: null, createdAt: 0 };
  }
  throw new Error('not an OpenCode source');
}

export function opencodeTranscript(ref: SourceRef, limit: number): OcMessage[] {
  if (ref.kind === 'opencode-json') return jsonMessages(ref.dataDir, ref.sessionId).slice(-limit);
  if (ref.kind !== 'opencode-db') return [];
  const db = openReadonly(ref.db);
  try {
    const rows = db
      .prepare(
        'SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created DESC, id DESC LIMIT ?',
      )
      .all(ref.sessionId, limit) as { id: string; time_created: number; data: string }[];
    const partsOf = db.prepare('SELECT data FROM part WHERE message_id = ? ORDER BY id');
    return rows.reverse().map((r) => ({
      id: r.id,
      createdAt: r.time_created,
      role: str(parseRow(r.data)?.role) ?? '',
      parts: (partsOf.all(r.id) as { data: string }[]).map((p) => ocPart(parseRow(p.data))),
    }));
  } finally {
    db.close();
  }
}
