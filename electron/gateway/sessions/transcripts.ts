// Durable transcripts: message content lives here, never in the signal log.
import type { ActorType } from '../../../shared/domain';
import type { Db } from '../db/open';
import type { FileDiff, MessageRole, ToolCallRecord, TranscriptMessage } from '../types';

interface MessageDbRow {
  id: number;
  session_key: string;
  role: MessageRole;
  actor_type: ActorType;
  actor_id: string | null;
  text: string;
  tool_calls: string | null;
  tool_call_id: string | null;
  tool_name: string | null;
  diffs: string | null;
  upstream: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  created_at: number;
}

export interface NewMessage {
  role: MessageRole;
  actorType: ActorType;
  actorId?: string;
  text: string;
  toolCalls?: ToolCallRecord[];
  toolCallId?: string;
  toolName?: string;
  diffs?: FileDiff[];
  upstream?: string;
  inputTokens?: number;
  outputTokens?: number;
  createdAt?: number;
}

function toMessage(r: MessageDbRow): TranscriptMessage {
  const m: TranscriptMessage = {
    id: r.id,
    sessionKey: r.session_key,
    role: r.role,
    actorType: r.actor_type,
    text: r.text,
    createdAt: r.created_at,
  };
  if (r.actor_id !== null) m.actorId = r.actor_id;
  if (r.tool_calls !== null) m.toolCalls = JSON.parse(r.tool_calls) as ToolCallRecord[];
  if (r.tool_call_id !== null) m.toolCallId = r.tool_call_id;
  if (r.tool_name !== null) m.toolName = r.tool_name;
  if (r.diffs !== null) m.diffs = JSON.parse(r.diffs) as FileDiff[];
  if (r.upstream !== null) m.upstream = r.upstream;
  if (r.input_tokens !== null) m.inputTokens = r.input_tokens;
  if (r.output_tokens !== null) m.outputTokens = r.output_tokens;
  return m;
}

/** One transcript message matching a search: `snippet` marks each matched term with SEARCH_MARK. */
export interface MessageHit {
  id: number;
  sessionKey: string;
  role: MessageRole;
  createdAt: number;
  snippet: string;
}

const SEARCH_TERMS_MAX = 12;

/**
 * A person's words → an FTS5 query that cannot be a syntax error: every whitespace-separated
 * word becomes a quoted prefix term (quotes inside dropped), all of them required. Undefined
 * when nothing searchable is left.
 */
export function ftsQuery(text: string): string | undefined {
  const terms = text
    .split(/\s+/)
    .map((t) => t.replace(/"/g, ''))
    .filter((t) => /[\p{L}\p{N}]/u.test(t))
    .slice(0, SEARCH_TERMS_MAX);
  return terms.length ? terms.map((t) => `"${t}"*`).join(' AND ') : undefined;
}

function statements(db: Db) {
  return {
    insert: db.prepare(
      `INSERT INTO session_messages (session_key, role, actor_type, actor_id, text, tool_calls, tool_call_id, tool_name,
         diffs, upstream, input_tokens, output_tokens, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    byId: db.prepare<[number], MessageDbRow>(`SELECT * FROM session_messages WHERE id = ?`),
    page: db.prepare<[string, number, number], MessageDbRow>(
      `SELECT * FROM session_messages WHERE session_key = ? AND id < ? ORDER BY id DESC LIMIT ?`,
    ),
    all: db.prepare<[string], MessageDbRow>(
      `SELECT * FROM session_messages WHERE session_key = ? ORDER BY id`,
    ),
    count: db.prepare<[string], { n: number; chars: number }>(
      `SELECT count(*) AS n, coalesce(sum(length(text)), 0) AS chars FROM session_messages WHERE session_key = ?`,
    ),
    clear: db.prepare(`DELETE FROM session_messages WHERE session_key = ?`),
    changedFiles: db.prepare<[string], { path: string }>(
      `SELECT DISTINCT json_extract(d.value, '$.path') AS path FROM session_messages AS m, json_each(m.diffs) AS d
       WHERE m.session_key = ? AND m.diffs IS NOT NULL ORDER BY path`,
    ),
    deleteBefore: db.prepare(`DELETE FROM session_messages WHERE session_key = ? AND id < ?`),
    // The summary takes the place (and id) of the newest compacted message, so order is kept.
    replace: db.prepare(
      `UPDATE session_messages SET role = ?, actor_type = ?, actor_id = ?, text = ?, tool_calls = NULL,
         tool_call_id = NULL, tool_name = NULL, diffs = NULL, upstream = NULL, input_tokens = NULL, output_tokens = NULL WHERE session_key = ? AND id = ?`,
    ),
    // The index is kept by the triggers of migration 006, in the transaction of every write.
    search: db.prepare<
      [string, number],
      { id: number; session_key: string; role: MessageRole; created_at: number; snippet: string }
    >(
      `SELECT m.id, m.session_key, m.role, m.created_at,
         snippet(session_messages_fts, 0, char(2), char(3), '…', 24) AS snippet
       FROM session_messages_fts JOIN session_messages m ON m.id = session_messages_fts.rowid
       WHERE session_messages_fts MATCH ? ORDER BY rank LIMIT ?`,
    ),
    tokens: db.prepare<[string], { input: number; output: number }>(
      `SELECT coalesce(sum(input_tokens), 0) AS input, coalesce(sum(output_tokens), 0) AS output
       FROM session_messages WHERE session_key = ?`,
    ),
  };
}

/** The insert's parameters for a new message, in column order. */
const messageValues = (sessionKey: string, m: NewMessage, at: number) => [
  sessionKey,
  m.role,
  m.actorType,
  m.actorId ?? null,
  m.text,
  m.toolCalls ? JSON.stringify(m.toolCalls) : null,
  m.toolCallId ?? null,
  m.toolName ?? null,
  m.diffs?.length ? JSON.stringify(m.diffs) : null,
  m.upstream ?? null,
  m.inputTokens ?? null,
  m.outputTokens ?? null,
  m.createdAt ?? at,
];

export type TranscriptStore = ReturnType<typeof createTranscriptStore>;

export function createTranscriptStore(db: Db, now: () => number) {
  const s = statements(db);
  return {
    append(sessionKey: string, m: NewMessage): TranscriptMessage {
      const info = s.insert.run(...messageValues(sessionKey, m, m.createdAt ?? now()));
      return toMessage(s.byId.get(Number(info.lastInsertRowid))!);
    },
    /** Newest page first in storage order, returned oldest first. */
    page(sessionKey: string, opts: { beforeId?: number; limit?: number } = {}) {
      const limit = Math.min(500, Math.max(1, Math.floor(opts.limit ?? 100)));
      const rows = s.page.all(sessionKey, opts.beforeId ?? Number.MAX_SAFE_INTEGER, limit + 1);
      return { messages: rows.slice(0, limit).reverse().map(toMessage), hasMore: rows.length > limit };
    },
    all: (sessionKey: string): TranscriptMessage[] => s.all.all(sessionKey).map(toMessage),
    size: (sessionKey: string) => s.count.get(sessionKey)!,
    tokens: (sessionKey: string) => s.tokens.get(sessionKey)!,
    clear: (sessionKey: string) => void s.clear.run(sessionKey),
    /** The files the session's agent changed (paths as its diffs name them), sorted. */
    changedFiles: (sessionKey: string): string[] => s.changedFiles.all(sessionKey).map((r) => r.path),
    /** Messages whose text has every word of `text` (as word prefixes), best first. */
    search(text: string, limit = 200): MessageHit[] {
      const q = ftsQuery(text);
      if (!q) return [];
      return s.search.all(q, Math.min(1000, Math.max(1, Math.floor(limit)))).map((r) => ({
        id: r.id,
        sessionKey: r.session_key,
        role: r.role,
        createdAt: r.created_at,
        snippet: r.snippet,
      }));
    },
    /** Replaces messages up to `lastId` with one summary message (compaction), atomically. */
    compact: db.transaction((sessionKey: string, lastId: number, summary: NewMessage): number => {
      s.deleteBefore.run(sessionKey, lastId);
      s.replace.run(
        summary.role,
        summary.actorType,
        summary.actorId ?? null,
        summary.text,
        sessionKey,
        lastId,
      );
      return lastId;
    }),
  };
}
