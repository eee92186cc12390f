// Search across sessions (issue 17.5): labels and keys of the registry, and the message text of
// transcripts through their FTS5 index; results grouped by session, each with its matching line.
import {
  SEARCH_MARK,
  type SearchGroup,
  type SearchMatch,
  type SearchResult,
} from '../../../shared/ipc/types';
import type { MessageHit } from '../sessions/transcripts';
import type { SessionInfo } from '../types';

/** Message matches listed per session; the rest are counted in `more`. */
export const MATCHES_PER_SESSION = 5;
/** Characters of a matching line shown around its first match. */
export const LINE_CHARS = 240;

export interface SearchSources {
  sessions: { list(): SessionInfo[] };
  transcripts: { search(text: string, limit?: number): MessageHit[] };
}

const words = (query: string) =>
  query
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w.length > 0);

/** `text` with every occurrence of each word marked, or undefined unless all words occur. */
export function markWords(text: string, ws: string[]): string | undefined {
  const lower = text.toLowerCase();
  if (ws.length === 0 || !ws.every((w) => lower.includes(w))) return undefined;
  const hit = new Array<boolean>(text.length).fill(false);
  for (const w of ws) {
    for (let i = lower.indexOf(w); i !== -1; i = lower.indexOf(w, i + w.length))
      hit.fill(true, i, i + w.length);
  }
  let out = '';
  for (let i = 0; i < text.length; i++) {
    if (hit[i] && !hit[i - 1]) out += SEARCH_MARK.start;
    out += text[i];
    if (hit[i] && !hit[i + 1]) out += SEARCH_MARK.end;
  }
  return out;
}

/** The line of a snippet that holds its first match, cut to LINE_CHARS around it. */
export function matchingLine(snippet: string): string {
  const at = Math.max(0, snippet.indexOf(SEARCH_MARK.start));
  const start = snippet.lastIndexOf('\n', at) + 1;
  const nl = snippet.indexOf('\n', at);
  let line = snippet.slice(start, nl === -1 ? undefined : nl);
  const rel = at - start;
  if (line.length > LINE_CHARS) {
    const from = Math.max(0, Math.min(rel - LINE_CHARS / 4, line.length - LINE_CHARS));
    line = `${from > 0 ? '…' : ''}${line.slice(from, from + LINE_CHARS)}${from + LINE_CHARS < line.length ? '…' : ''}`;
  }
  // A cut may leave a mark without its partner; close it so every start has an end.
  const opens = line.split(SEARCH_MARK.start).length - line.split(SEARCH_MARK.end).length;
  return opens > 0 ? line + SEARCH_MARK.end : line;
}

export function searchSessions(src: SearchSources, query: string, limit: number): SearchResult {
  const ws = words(query);
  const infos = new Map(src.sessions.list().map((s) => [s.key, s]));
  const groups = new Map<string, SearchGroup>();
  const group = (info: SessionInfo) => {
    let g = groups.get(info.key);
    if (!g) {
      g = { sessionKey: info.key, ...(info.label ? { label: info.label } : {}), matches: [], more: 0 };
      groups.set(info.key, g);
    }
    return g;
  };
  for (const info of infos.values()) {
    const label = info.label ? markWords(info.label, ws) : undefined;
    const key = markWords(info.key, ws);
    if (label !== undefined) group(info).matches.push({ field: 'label', line: label });
    if (key !== undefined) group(info).matches.push({ field: 'key', line: key });
  }
  const hits = src.transcripts.search(query, limit + 1);
  for (const hit of hits.slice(0, limit)) {
    const info = infos.get(hit.sessionKey);
    if (!info) continue; // a transcript row of a session no longer in the registry
    const g = group(info);
    if (g.matches.filter((m) => m.field === 'message').length >= MATCHES_PER_SESSION) {
      g.more++;
      continue;
    }
    const match: SearchMatch = {
      field: 'message',
      line: matchingLine(hit.snippet),
      messageId: hit.id,
      role: hit.role,
      createdAt: hit.createdAt,
    };
    g.matches.push(match);
  }
  return { query, groups: [...groups.values()], truncated: hits.length > limit };
}
