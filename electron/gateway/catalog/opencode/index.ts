// OpenCode as a catalog provider: sessions from its SQLite database (or the older JSON layout),
// a marker that is the last message classified as (created, id), at most 200 messages per check.
// OpenCode has no "continue" from Sightline yet.
import path from 'node:path';
import type { MarkerFields, ProbeOutcome, ProviderModule, SourceRef, VisibleMessage } from '../provider';
import { isNotFound } from '../kit/fsio';
import type { SqliteDb } from '../kit/sqlite';
import { classifyOpencode, ocVisible, type OcClassified, type OcMessage } from './rules';
import {
  dbHasSession,
  dbLastMessage,
  dbLastMessages,
  dbMessage,
  dbMessagesAfter,
  dbUserMessagesBefore,
  dbSessions,
  isDbRef,
  isJsonRef,
  jsonMessages,
  jsonSessionExists,
  jsonSessions,
  opencodePaths,
} from './store';

export interface OcMarker {
  messageId: string | null;
  createdAt: number;
}

const BATCH = 200;
const START: OcMarker = { messageId: null, createdAt: 0 };

function toMarker(m: MarkerFields): OcMarker {
  return m.markerJson ? (JSON.parse(m.markerJson) as OcMarker) : START;
}

function fromMarker(m: OcMarker): MarkerFields {
  return { offset: 0, inode: null, markerJson: JSON.stringify(m), scanState: null };
}

function outcome(prev: OcMarker, c: OcClassified): ProbeOutcome {
  const next = c.last ? { messageId: c.last.id, createdAt: c.last.createdAt } : prev;
  return {
    kind: 'activity',
    turns: c.turns,
    marker: fromMarker(next),
    changed: c.last !== undefined,
    from: `${prev.messageId ?? ''}@${prev.createdAt}`,
    ...(c.occurredAt !== undefined ? { occurredAt: c.occurredAt } : {}),
    ...(c.messages ? { messages: c.messages } : {}),
  };
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
    // One read-only connection per database for all links of one check.
    const conns = new Map<string, SqliteDb>();
    const conn = (file: string) => {
      let db = conns.get(file);
      if (!db) conns.set(file, (db = sqlite(file)));
      return db;
    };
    const once = <T>(file: string, fn: (db: SqliteDb) => T): T => {
      const db = sqlite(file);
      try {
        return fn(db);
      } finally {
        db.close();
      }
    };
    const exists = (file: string) => {
      try {
        cfs.statSync(file);
        return true;
      } catch (err) {
        if (isNotFound(err)) return false;
        throw err;
      }
    };

    function probeDb(
      ref: SourceRef & { db: string; sessionId: string },
      prev: OcMarker,
      own: { has(k: string): boolean },
      now: number,
      visible: boolean,
    ): ProbeOutcome {
      if (!exists(ref.db)) return { kind: 'missing' };
      const db = conn(ref.db);
      if (!dbHasSession(db, ref.sessionId)) return { kind: 'missing' };
      const after = { createdAt: prev.createdAt, id: prev.messageId ?? '' };
      const rows = dbMessagesAfter(db, ref.sessionId, after, BATCH);
      if (rows.length === 0)
        return outcome(prev, { turns: 0, echoes: 0, ...(visible ? { messages: [] } : {}) });
      const msgs = rows.map((r) => dbMessage(db, r, visible));
      const first = msgs[0]!;
      const before = dbUserMessagesBefore(db, ref.sessionId, first, 3).map((r) => dbMessage(db, r, false));
      return outcome(prev, classifyOpencode(msgs, before, own, now, visible));
    }

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
      probe(ref, marker, ctx) {
        const prev = toMarker(marker);
        const visible = ctx.visible === true;
        try {
          if (isDbRef(ref)) return probeDb(ref, prev, ctx.ownTexts, ctx.now, visible);
          if (!isJsonRef(ref)) return { kind: 'inconclusive', error: new Error('not an OpenCode source') };
          if (!jsonSessionExists(cfs, ref)) return { kind: 'missing' };
          const all = jsonMessages(cfs, ref.dataDir, ref.sessionId, visible);
          const after = (m: OcMessage) =>
            m.createdAt > prev.createdAt || (m.createdAt === prev.createdAt && m.id > (prev.messageId ?? ''));
          const msgs = all.filter(after).slice(0, BATCH);
          const before = all.filter((m) => !after(m) && m.role === 'user').slice(-3);
          if (msgs.length === 0)
            return outcome(prev, { turns: 0, echoes: 0, ...(visible ? { messages: [] } : {}) });
          return outcome(prev, classifyOpencode(msgs, before, ctx.ownTexts, ctx.now, visible));
        } catch (err) {
          if (isNotFound(err)) return { kind: 'missing' };
          return { kind: 'inconclusive', error: err };
        }
      },
      readTail(ref, limit): VisibleMessage[] {
        let msgs: OcMessage[] = [];
        if (isJsonRef(ref)) msgs = jsonMessages(cfs, ref.dataDir, ref.sessionId, true).slice(-limit);
        else if (isDbRef(ref))
          msgs = once(ref.db, (db) =>
            dbLastMessages(db, ref.sessionId, limit).map((r) => dbMessage(db, r, true)),
          );
        return msgs.flatMap((m) => {
          const v = ocVisible(m);
          return v ? [v] : [];
        });
      },
      endCheck() {
        for (const db of conns.values()) db.close();
        conns.clear();
      },
    };
  },
};
