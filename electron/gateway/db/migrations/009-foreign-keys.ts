import type { Migration } from '../migrate';

// Foreign keys that hold in fact, and no enum CHECKs (kinds, actor types, providers, roles and
// statuses are checked once, in code, from shared/). One rebuild per table does both (the
// catalog's links lost their provider CHECK in 005; they gain their foreign key here). Rebuilding
// session_messages drops the search index's triggers (006): they are made again, the same, and
// the index is rebuilt from the rows (their ids are kept).
//
// * A session key names one session: `sessions.key` becomes unique (a bare key such as `global`
//   is registered for one agent; the signal log still scopes it by agent id). Duplicate
//   registry rows of a bare key keep the oldest.
// * Transcript rows, goals, runs, upstream links and the texts sent upstream reference
//   `sessions(key)` and go with their session (ON DELETE CASCADE). Rows that belong to no
//   session are dropped on the way (nothing could reach them).
// * The signal log, heads and watch cursors stay keyed by session key without a foreign key:
//   global-scope keys and keys never created as sessions are recorded, and the contract lets a
//   watcher register on such a key (registerWatch, producer watchers). Deleting a session
//   removes its log, head and cursors on both sides explicitly (sessions/service.ts).
// * AUTOINCREMENT counters are carried over, so a sequence or message id is never reused.
const keepCounter = (from: string, to: string) => `
DELETE FROM sqlite_sequence WHERE name = '${to}';
INSERT INTO sqlite_sequence (name, seq) SELECT '${to}', seq FROM sqlite_sequence WHERE name = '${from}';`;

const SESSION = `REFERENCES sessions (key) ON DELETE CASCADE`;
const HAS_SESSION = (col: string) => `${col} IN (SELECT key FROM sessions)`;

export const migration009: Migration = {
  version: 9,
  name: 'foreign-keys',
  up: `
DELETE FROM sessions WHERE EXISTS (
  SELECT 1 FROM sessions o WHERE o.key = sessions.key
    AND (o.created_at < sessions.created_at OR (o.created_at = sessions.created_at AND o.rowid < sessions.rowid))
);
CREATE UNIQUE INDEX sessions_by_key ON sessions (key);

CREATE TABLE session_state_events_new (
  sequence     INTEGER PRIMARY KEY AUTOINCREMENT,
  session_key  TEXT NOT NULL,
  agent_id     TEXT NOT NULL,
  kind         TEXT NOT NULL,
  actor_type   TEXT NOT NULL,
  actor_id     TEXT,
  run_id       TEXT,
  occurred_at  INTEGER NOT NULL,
  summary      TEXT NOT NULL,
  payload      TEXT,
  dedupe_key   TEXT
) STRICT;
INSERT INTO session_state_events_new SELECT * FROM session_state_events;
${keepCounter('session_state_events', 'session_state_events_new')}
DROP TABLE session_state_events;
ALTER TABLE session_state_events_new RENAME TO session_state_events;
CREATE UNIQUE INDEX session_state_events_by_dedupe ON session_state_events (dedupe_key) WHERE dedupe_key IS NOT NULL;
CREATE INDEX session_state_events_by_session ON session_state_events (session_key, agent_id, sequence);
CREATE INDEX session_state_events_by_time ON session_state_events (occurred_at);

CREATE TABLE agents_new (
  id                 TEXT PRIMARY KEY,
  name               TEXT NOT NULL,
  provider           TEXT NOT NULL,
  provider_settings  TEXT NOT NULL DEFAULT '{}',
  system_prompt      TEXT NOT NULL DEFAULT '',
  heartbeat_seconds  INTEGER NOT NULL DEFAULT 0 CHECK (heartbeat_seconds >= 0),
  main_key           TEXT NOT NULL,
  created_at         INTEGER NOT NULL,
  updated_at         INTEGER NOT NULL
) STRICT;
INSERT INTO agents_new SELECT * FROM agents;
DROP TABLE agents;
ALTER TABLE agents_new RENAME TO agents;

CREATE TABLE session_messages_new (
  id             INTEGER PRIMARY KEY AUTOINCREMENT,
  session_key    TEXT NOT NULL ${SESSION},
  role           TEXT NOT NULL,
  actor_type     TEXT NOT NULL,
  actor_id       TEXT,
  text           TEXT NOT NULL,
  tool_calls     TEXT,
  tool_call_id   TEXT,
  tool_name      TEXT,
  input_tokens   INTEGER,
  output_tokens  INTEGER,
  created_at     INTEGER NOT NULL
) STRICT;
INSERT INTO session_messages_new SELECT * FROM session_messages WHERE ${HAS_SESSION('session_key')};
${keepCounter('session_messages', 'session_messages_new')}
DROP TABLE session_messages;
ALTER TABLE session_messages_new RENAME TO session_messages;
CREATE INDEX session_messages_by_session ON session_messages (session_key, id);
CREATE TRIGGER session_messages_fts_insert AFTER INSERT ON session_messages BEGIN
  INSERT INTO session_messages_fts (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER session_messages_fts_delete AFTER DELETE ON session_messages BEGIN
  INSERT INTO session_messages_fts (session_messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER session_messages_fts_update AFTER UPDATE OF text ON session_messages BEGIN
  INSERT INTO session_messages_fts (session_messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO session_messages_fts (rowid, text) VALUES (new.id, new.text);
END;
INSERT INTO session_messages_fts (session_messages_fts) VALUES ('rebuild');

CREATE TABLE session_goals_new (
  session_key  TEXT PRIMARY KEY ${SESSION},
  objective    TEXT NOT NULL,
  status       TEXT NOT NULL,
  updated_at   INTEGER NOT NULL
) STRICT;
INSERT INTO session_goals_new SELECT * FROM session_goals WHERE ${HAS_SESSION('session_key')};
DROP TABLE session_goals;
ALTER TABLE session_goals_new RENAME TO session_goals;

CREATE TABLE runs_new (
  run_id         TEXT PRIMARY KEY,
  session_key    TEXT NOT NULL ${SESSION},
  status         TEXT NOT NULL,
  outcome        TEXT,
  error          TEXT,
  started_at     INTEGER NOT NULL,
  ended_at       INTEGER,
  input_tokens   INTEGER NOT NULL DEFAULT 0,
  output_tokens  INTEGER NOT NULL DEFAULT 0
) STRICT;
INSERT INTO runs_new SELECT * FROM runs WHERE ${HAS_SESSION('session_key')};
DROP TABLE runs;
ALTER TABLE runs_new RENAME TO runs;
CREATE INDEX runs_by_session ON runs (session_key, started_at);

CREATE TABLE catalog_upstream_links_new (
  session_key     TEXT PRIMARY KEY ${SESSION},
  provider        TEXT NOT NULL,
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
  updated_at      INTEGER NOT NULL,
  cwd             TEXT
) STRICT;
INSERT INTO catalog_upstream_links_new SELECT * FROM catalog_upstream_links WHERE ${HAS_SESSION('session_key')};
DROP TABLE catalog_upstream_links;
ALTER TABLE catalog_upstream_links_new RENAME TO catalog_upstream_links;
CREATE INDEX catalog_upstream_links_by_thread ON catalog_upstream_links (provider, thread_id);

CREATE TABLE catalog_own_texts_new (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  session_key  TEXT NOT NULL ${SESSION},
  text         TEXT NOT NULL,
  created_at   INTEGER NOT NULL
) STRICT;
INSERT INTO catalog_own_texts_new SELECT * FROM catalog_own_texts WHERE ${HAS_SESSION('session_key')};
${keepCounter('catalog_own_texts', 'catalog_own_texts_new')}
DROP TABLE catalog_own_texts;
ALTER TABLE catalog_own_texts_new RENAME TO catalog_own_texts;
CREATE INDEX catalog_own_texts_by_session ON catalog_own_texts (session_key, id);
`,
};
