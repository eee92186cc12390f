// Reading what is new in an OpenCode session since its marker (the last message classified, as
// (created, id)): at most 200 messages per check, from the SQLite database or the JSON layout,
// with the last three user messages before them for the echo rules.
import type { MarkerFields, ProbeContext, ProbeOutcome, SourceRef } from '../provider';
import { isNotFound, type CatalogFs } from '../kit/fsio';
import type { SqliteDb } from '../kit/sqlite';
import { classifyOpencode, type OcClassified, type OcMessage } from './rules';
import {
  dbHasSession,
  dbMessage,
  dbMessagesAfter,
  dbUserMessagesBefore,
  isDbRef,
  isJsonRef,
  jsonMessages,
  jsonSessionExists,
  type DbRef,
  type JsonRef,
} from './store';

export interface OcMarker {
  messageId: string | null;
  createdAt: number;
}

const BATCH = 200;
export const START: OcMarker = { messageId: null, createdAt: 0 };

export function toMarker(m: MarkerFields): OcMarker {
  return m.markerJson ? (JSON.parse(m.markerJson) as OcMarker) : START;
}

export function fromMarker(m: OcMarker): MarkerFields {
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

const nothingNew = (prev: OcMarker, visible: boolean) =>
  outcome(prev, { turns: 0, echoes: 0, ...(visible ? { messages: [] } : {}) });

/** Where a probe reads: the file system, and the check's connection to a database. */
export interface ProbeIo {
  cfs: CatalogFs;
  conn(file: string): SqliteDb;
}

/** One probe of a session (a missing database, session or folder is `missing`). */
export function probeOpencode(
  io: ProbeIo,
  ref: SourceRef,
  marker: MarkerFields,
  ctx: ProbeContext,
): ProbeOutcome {
  const prev = toMarker(marker);
  const visible = ctx.visible === true;
  try {
    if (isDbRef(ref)) return probeDb(io, ref, prev, ctx, visible);
    if (!isJsonRef(ref)) return { kind: 'inconclusive', error: new Error('not an OpenCode source') };
    return probeJson(io.cfs, ref, prev, ctx, visible);
  } catch (err) {
    if (isNotFound(err)) return { kind: 'missing' };
    return { kind: 'inconclusive', error: err };
  }
}

function probeDb(io: ProbeIo, ref: DbRef, prev: OcMarker, ctx: ProbeContext, visible: boolean): ProbeOutcome {
  if (!exists(io.cfs, ref.db)) return { kind: 'missing' };
  const db = io.conn(ref.db);
  if (!dbHasSession(db, ref.sessionId)) return { kind: 'missing' };
  const after = { createdAt: prev.createdAt, id: prev.messageId ?? '' };
  const rows = dbMessagesAfter(db, ref.sessionId, after, BATCH);
  if (rows.length === 0) return nothingNew(prev, visible);
  const msgs = rows.map((r) => dbMessage(db, r, visible));
  const first = msgs[0]!;
  const before = dbUserMessagesBefore(db, ref.sessionId, first, 3).map((r) => dbMessage(db, r, false));
  return outcome(prev, classifyOpencode(msgs, before, ctx.ownTexts, ctx.now, visible));
}

function probeJson(
  cfs: CatalogFs,
  ref: JsonRef,
  prev: OcMarker,
  ctx: ProbeContext,
  visible: boolean,
): ProbeOutcome {
  if (!jsonSessionExists(cfs, ref)) return { kind: 'missing' };
  const all = jsonMessages(cfs, ref.dataDir, ref.sessionId, visible);
  const after = (m: OcMessage) =>
    m.createdAt > prev.createdAt || (m.createdAt === prev.createdAt && m.id > (prev.messageId ?? ''));
  const msgs = all.filter(after).slice(0, BATCH);
  const before = all.filter((m) => !after(m) && m.role === 'user').slice(-3);
  if (msgs.length === 0) return nothingNew(prev, visible);
  return outcome(prev, classifyOpencode(msgs, before, ctx.ownTexts, ctx.now, visible));
}

function exists(cfs: CatalogFs, file: string): boolean {
  try {
    cfs.statSync(file);
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}
