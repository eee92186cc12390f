import type { Migration } from '../migrate';

// The catalog's upstream links and the texts Sightline itself sent into adopted sessions.
// A link holds the scan marker of its source: a byte offset + inode (+ the bounded state of an
// oversized row being scanned) for JSONL transcripts, or the last message seen for OpenCode.
// `generation` changes on every (re-)adoption so a check that raced a re-adoption never writes
// over the fresh link, and so dedupe keys of an old link never swallow events of a new one.
export const migration003: Migration = {
  version: 3,
  name: 'catalog',
  up: `
CREATE TABLE catalog_upstream_links (
  session_key     TEXT PRIMARY KEY,
  provider        TEXT NOT NULL CHECK (provider IN ('claude','codex','opencode','pi')),
  thread_id       TEXT NOT NULL,
  host_id         TEXT NOT NULL,
  source_ref      TEXT NOT NULL,
  source_hash     TEXT NOT NULL,
  generation      INTEGER NOT NULL,
  marker_offset   INTEGER NOT NULL DEFAULT 0,
  marker_inode    TEXT,
  marker_json     TEXT,
  scan_state      TEXT,
  missing_streak  INTEGER NOT NULL DEFAULT 0,
  last_scanned_at INTEGER,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL
) STRICT;
CREATE INDEX catalog_upstream_links_by_thread ON catalog_upstream_links (provider, thread_id);

CREATE TABLE catalog_own_texts (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  session_key  TEXT NOT NULL,
  text         TEXT NOT NULL,
  created_at   INTEGER NOT NULL
) STRICT;
CREATE INDEX catalog_own_texts_by_session ON catalog_own_texts (session_key, id);
`,
};
