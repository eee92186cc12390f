// The upstream links repository (migration 003): one row per adopted session, plus the last ten
// texts Sightline itself sent into each adopted session (self-echo). Plain functions over the
// state database; every write is a single statement or one transaction.
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { SourceRef } from './provider';

export const OWN_TEXTS_KEPT = 10;

export interface Link {
  sessionKey: string;
  provider: string;
  threadId: string;
  hostId: string;
  ref: SourceRef;
  /** The session's working folder as shown at adoption (null: none was known). */
  cwd: string | null;
  sourceHash: string;
  generation: number;
  offset: number;
  inode: string | null;
  markerJson: string | null;
  scanState: string | null;
  streak: number;
}

interface LinkRowDb {
  session_key: string;
  provider: string;
  thread_id: string;
  host_id: string;
  source_ref: string;
  cwd: string | null;
  source_hash: string;
  generation: number;
  marker_offset: number;
  marker_inode: string | null;
  marker_json: string | null;
  scan_state: string | null;
  missing_streak: number;
}

function toLink(r: LinkRowDb): Link {
  return {
    sessionKey: r.session_key,
    provider: r.provider,
    threadId: r.thread_id,
    hostId: r.host_id,
    ref: JSON.parse(r.source_ref) as SourceRef,
    cwd: r.cwd,
    sourceHash: r.source_hash,
    generation: r.generation,
    offset: r.marker_offset,
    inode: r.marker_inode,
    markerJson: r.marker_json,
    scanState: r.scan_state,
    streak: r.missing_streak,
  };
}

export function sourceHash(
  hostId: string,
  provider: string,
  threadId: string,
  ref: SourceRef,
  generation: number,
): string {
  return createHash('sha256')
    .update(JSON.stringify([hostId, provider, threadId, ref, generation]))
    .digest('hex')
    .slice(0, 16);
}

export interface MarkerFields {
  offset: number;
  inode: string | null;
  markerJson: string | null;
  scanState: string | null;
}

/** The links' and own texts' statements, prepared once. */
function linkStatements(db: Database.Database) {
  const cols = `session_key, provider, thread_id, host_id, source_ref, cwd, source_hash, generation, marker_offset,
    marker_inode, marker_json, scan_state, missing_streak`;
  const getStmt = db.prepare(`SELECT ${cols} FROM catalog_upstream_links WHERE session_key = ?`);
  const watchedStmt = db.prepare(
    `SELECT ${cols} FROM catalog_upstream_links l
     WHERE EXISTS (SELECT 1 FROM session_watch_cursors c WHERE c.target_key = l.session_key)
     ORDER BY provider, session_key`,
  );
  const upsertStmt = db.prepare(
    `INSERT INTO catalog_upstream_links (session_key, provider, thread_id, host_id, source_ref, cwd, source_hash, generation,
       marker_offset, marker_inode, marker_json, scan_state, missing_streak, last_scanned_at, created_at, updated_at)
     VALUES (@sessionKey, @provider, @threadId, @hostId, @ref, @cwd, @sourceHash, @generation, @offset, @inode, @markerJson, NULL, 0, NULL, @now, @now)
     ON CONFLICT (session_key) DO UPDATE SET provider = excluded.provider, thread_id = excluded.thread_id,
       host_id = excluded.host_id, source_ref = excluded.source_ref, cwd = excluded.cwd, source_hash = excluded.source_hash,
       generation = excluded.generation, marker_offset = excluded.marker_offset, marker_inode = excluded.marker_inode,
       marker_json = excluded.marker_json, scan_state = NULL, missing_streak = 0, last_scanned_at = NULL,
       updated_at = excluded.updated_at`,
  );
  const markerStmt = db.prepare(
    `UPDATE catalog_upstream_links SET marker_offset = @offset, marker_inode = @inode, marker_json = @markerJson,
       scan_state = @scanState, missing_streak = 0, last_scanned_at = @now, updated_at = @now
     WHERE session_key = @sessionKey AND generation = @generation`,
  );
  const streakStmt = db.prepare(
    `UPDATE catalog_upstream_links SET missing_streak = @streak, last_scanned_at = @now, updated_at = @now
     WHERE session_key = @sessionKey AND generation = @generation`,
  );
  const removeStmt = db.prepare(
    'DELETE FROM catalog_upstream_links WHERE session_key = ? AND generation = ?',
  );
  const removeHostStmt = db.prepare('DELETE FROM catalog_upstream_links WHERE host_id = ?');
  const keysStmt = db.prepare('SELECT session_key FROM catalog_upstream_links').pluck();
  const ownManyStmt = db.prepare(
    `SELECT session_key, text FROM catalog_own_texts
     WHERE session_key IN (SELECT value FROM json_each(?)) ORDER BY id DESC`,
  );
  const ownStmt = db.prepare(
    `SELECT text FROM catalog_own_texts WHERE session_key = ? ORDER BY id DESC LIMIT ${OWN_TEXTS_KEPT}`,
  );
  const addOwnStmt = db.prepare(
    'INSERT INTO catalog_own_texts (session_key, text, created_at) VALUES (?, ?, ?)',
  );
  const trimOwnStmt = db.prepare(
    `DELETE FROM catalog_own_texts WHERE session_key = ? AND id NOT IN
       (SELECT id FROM catalog_own_texts WHERE session_key = ? ORDER BY id DESC LIMIT ${OWN_TEXTS_KEPT})`,
  );
  return {
    getStmt,
    watchedStmt,
    upsertStmt,
    markerStmt,
    streakStmt,
    removeStmt,
    removeHostStmt,
    keysStmt,
    ownManyStmt,
    ownStmt,
    addOwnStmt,
    trimOwnStmt,
  };
}

/** The last texts Sightline sent into each adopted session (self-echo), newest first. */
function ownTexts(
  db: Database.Database,
  st: Pick<ReturnType<typeof linkStatements>, 'ownManyStmt' | 'ownStmt' | 'addOwnStmt' | 'trimOwnStmt'>,
) {
  const addOwn = db.transaction((key: string, text: string, now: number) => {
    st.addOwnStmt.run(key, text, now);
    st.trimOwnStmt.run(key, key);
  });
  return {
    /** The recent own texts of many sessions at once (newest first, at most ten each). */
    ownTextsOf(sessionKeys: readonly string[]): Map<string, string[]> {
      const out = new Map<string, string[]>();
      if (sessionKeys.length === 0) return out;
      for (const r of st.ownManyStmt.all(JSON.stringify(sessionKeys)) as {
        session_key: string;
        text: string;
      }[]) {
        const list = out.get(r.session_key) ?? [];
        if (list.length < OWN_TEXTS_KEPT) list.push(r.text);
        out.set(r.session_key, list);
      }
      return out;
    },
    ownTexts(sessionKey: string): string[] {
      return (st.ownStmt.all(sessionKey) as { text: string }[]).map((r) => r.text);
    },
    addOwnText(sessionKey: string, text: string, now: number): void {
      addOwn(sessionKey, text, now);
    },
  };
}

export function createLinkRepo(db: Database.Database) {
  const st = linkStatements(db);
  // The watched links change only through a write to this database: on this connection
  // (total_changes) or another one (data_version). An idle check then costs no query at all.
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  const totalChanges = db.prepare('SELECT total_changes()').pluck();
  let cache: { dv: unknown; tc: unknown; links: Link[]; own?: Map<string, string[]> } | undefined;

  return {
    ...ownTexts(db, st),
    get(sessionKey: string): Link | undefined {
      const r = st.getStmt.get(sessionKey) as LinkRowDb | undefined;
      return r ? toLink(r) : undefined;
    },
    /** The session keys of every link (a listing marks the adopted entries with one query). */
    keys(): Set<string> {
      return new Set(st.keysStmt.all() as string[]);
    },
    /** Links some session watches: only those are checked (spec: "watched adopted sessions"). */
    watched(): Link[] {
      const dv = dataVersion.get();
      const tc = totalChanges.get();
      if (cache && cache.dv === dv && cache.tc === tc) return cache.links;
      const links = (st.watchedStmt.all() as LinkRowDb[]).map(toLink);
      cache = { dv, tc, links };
      return links;
    },
    /**
     * The recent own texts of every watched link, cached like the list (the same arrays until the
     * database changes): a node's check sends them again only when they changed.
     */
    watchedOwnTexts(): Map<string, string[]> {
      const all = this.watched();
      const c = cache!;
      return (c.own ??= this.ownTextsOf(all.map((l) => l.sessionKey)));
    },
    /** A fresh link (adoption or re-adoption): next generation, baseline marker, no streak. */
    put(l: Omit<Link, 'generation' | 'sourceHash' | 'scanState' | 'streak'>, now: number): Link {
      const prev = this.get(l.sessionKey);
      const generation = (prev?.generation ?? 0) + 1;
      const hash = sourceHash(l.hostId, l.provider, l.threadId, l.ref, generation);
      st.upsertStmt.run({ ...l, ref: JSON.stringify(l.ref), sourceHash: hash, generation, now });
      return this.get(l.sessionKey)!;
    },
    /** Compare-and-swap on the generation: false when the link was re-adopted or removed meanwhile. */
    saveMarker(l: Link, m: MarkerFields, now: number): boolean {
      return (
        st.markerStmt.run({ ...m, sessionKey: l.sessionKey, generation: l.generation, now }).changes === 1
      );
    },
    saveStreak(l: Link, streak: number, now: number): boolean {
      return (
        st.streakStmt.run({ streak, sessionKey: l.sessionKey, generation: l.generation, now }).changes === 1
      );
    },
    remove(l: Link): void {
      st.removeStmt.run(l.sessionKey, l.generation);
    },
    /** Every link of a host (a node the person removed): no upstream_missing, the sessions stay. */
    removeHost(hostId: string): void {
      st.removeHostStmt.run(hostId);
    },
  };
}

export type LinkRepo = ReturnType<typeof createLinkRepo>;
