// OpenCode as a catalog provider: sessions from its SQLite database (or the older JSON layout),
// a marker that is the last message classified as (created, id), at most 200 messages per check
// (probe.ts). OpenCode has no "continue" from Sightline yet.
import path from 'node:path';
import type { ProviderModule, SourceRef, VisibleMessage } from '../provider';
import type { CatalogFs } from '../kit/fsio';
import type { SqliteDb, SqliteOpener } from '../kit/sqlite';
import { fromMarker, probeOpencode, START } from './probe';
import { ocVisible, type OcMessage } from './rules';
import {
  dbLastMessage,
  dbLastMessages,
  dbMessage,
  dbSessions,
  isDbRef,
  isJsonRef,
  jsonMessages,
  jsonSessions,
  opencodePaths,
} from './store';

export type { OcMarker } from './probe';

/** One read-only connection per database for all links of one check; `once` for one-off reads. */
function connections(sqlite: SqliteOpener) {
  const conns = new Map<string, SqliteDb>();
  return {
    conn(file: string): SqliteDb {
      let db = conns.get(file);
      if (!db) conns.set(file, (db = sqlite(file)));
      return db;
    },
    once<T>(file: string, fn: (db: SqliteDb) => T): T {
      const db = sqlite(file);
      try {
        return fn(db);
      } finally {
        db.close();
      }
    },
    closeAll(): void {
      for (const db of conns.values()) db.close();
      conns.clear();
    },
  };
}

/** The last messages of a session, as the person sees them. */
function readTail(
  cfs: CatalogFs,
  once: ReturnType<typeof connections>['once'],
  ref: SourceRef,
  limit: number,
) {
  let msgs: OcMessage[] = [];
  if (isJsonRef(ref)) msgs = jsonMessages(cfs, ref.dataDir, ref.sessionId, true).slice(-limit);
  else if (isDbRef(ref))
    msgs = once(ref.db, (db) => dbLastMessages(db, ref.sessionId, limit).map((r) => dbMessage(db, r, true)));
  return msgs.flatMap((m): VisibleMessage[] => {
    const v = ocVisible(m);
    return v ? [v] : [];
  });
}

export const opencodeProvider: ProviderModule = {
  id: 'opencode',
  label: 'OpenCode',
  // `ses_` and OpenCode's identifier alphabet (a time part and a random base62 part).
  threadId: /^ses_[0-9A-Za-z]{1,64}$/,
  defaultRoot(env, home) {
    const data = path.join(env.XDG_DATA_HOME || path.join(home, '.local', 'share'), 'opencode');
    // OPENCODE_DB names the database file (absolute, or relative to the data dir).
    return env.OPENCODE_DB ? path.resolve(data, env.OPENCODE_DB) : data;
  },
  open(root, { fs: cfs, sqlite }) {
    const { conn, once, closeAll } = connections(sqlite);
    return {
      // SQLite in WAL mode writes the log first: both files tell of a new message.
      watchPaths(ref) {
        if (isDbRef(ref)) return [ref.db, `${ref.db}-wal`];
        return isJsonRef(ref) ? [path.join(ref.dataDir, 'storage', 'message', ref.sessionId)] : [];
      },
      units() {
        const p = opencodePaths(root, cfs);
        if (p.db) return [p.db];
        return jsonSessions(cfs, p.dataDir).length ? [p.dataDir] : [];
      },
      describe(unit) {
        return unit.endsWith('.db') ? once(unit, (db) => dbSessions(db, unit)) : jsonSessions(cfs, unit);
      },
      find(threadId) {
        const p = opencodePaths(root, cfs);
        return (
          p.db ? once(p.db, (db) => dbSessions(db, p.db!, threadId)) : jsonSessions(cfs, p.dataDir, threadId)
        )[0];
      },
      baseline(ref) {
        let last: OcMessage | { id: string; createdAt: number } | undefined;
        if (isDbRef(ref)) {
          last = once(ref.db, (db) => dbLastMessage(db, ref.sessionId));
        } else if (isJsonRef(ref)) last = jsonMessages(cfs, ref.dataDir, ref.sessionId).pop();
        else throw new Error('not an OpenCode source');
        return fromMarker(last ? { messageId: last.id, createdAt: last.createdAt } : START);
      },
      probe: (ref, marker, ctx) => probeOpencode({ cfs, conn }, ref, marker, ctx),
      readTail: (ref, limit) => readTail(cfs, once, ref, limit),
      endCheck: closeAll,
    };
  },
};
