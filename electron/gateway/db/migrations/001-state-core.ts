import type { Migration } from '../migrate';

// The registry and the signal log of the spec. AUTOINCREMENT keeps sequences strictly
// increasing and never reused, also after the newest rows were deleted.
export const migration001: Migration = {
  version: 1,
  name: 'state-core',
  up: `
CREATE TABLE sessions (
  key         TEXT NOT NULL,
  agent_id    TEXT NOT NULL,
  parent_key  TEXT,
  label       TEXT,
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL,
  PRIMARY KEY (key, agent_id)
) STRICT;
CREATE INDEX sessions_by_parent ON sessions (parent_key) WHERE parent_key IS NOT NULL;

CREATE TABLE session_state_events (
  sequence     INTEGER PRIMARY KEY AUTOINCREMENT,
  session_key  TEXT NOT NULL,
  agent_id     TEXT NOT NULL,
  kind         TEXT NOT NULL CHECK (kind IN ('human_direct_message','upstream_missing','goal_changed',
                 'child_spawned','run_completed','run_failed','compacted','adopted')),
  actor_type   TEXT NOT NULL CHECK (actor_type IN ('human','agent','system')),
  actor_id     TEXT,
  run_id       TEXT,
  occurred_at  INTEGER NOT NULL,
  summary      TEXT NOT NULL,
  payload      TEXT,
  dedupe_key   TEXT
) STRICT;
-- Partial: most events carry no dedupe key, and they cost no index entry.
CREATE UNIQUE INDEX session_state_events_by_dedupe ON session_state_events (dedupe_key) WHERE dedupe_key IS NOT NULL;
CREATE INDEX session_state_events_by_session ON session_state_events (session_key, agent_id, sequence);
CREATE INDEX session_state_events_by_time ON session_state_events (occurred_at);

CREATE TABLE session_state_heads (
  session_key          TEXT NOT NULL,
  agent_id             TEXT NOT NULL,
  last_sequence        INTEGER NOT NULL,
  pruned_max_sequence  INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (session_key, agent_id)
) STRICT, WITHOUT ROWID;

-- Keyed target first: the watchers of one target share a page, so an append's fan-out touches one.
CREATE TABLE session_watch_cursors (
  target_key   TEXT NOT NULL,
  watcher_key  TEXT NOT NULL,
  last_seen    INTEGER NOT NULL,
  notified     INTEGER NOT NULL,
  material     INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL,
  PRIMARY KEY (target_key, watcher_key)
) STRICT, WITHOUT ROWID;
CREATE INDEX session_watch_cursors_by_watcher ON session_watch_cursors (watcher_key);
CREATE INDEX session_watch_cursors_by_age ON session_watch_cursors (updated_at);
CREATE INDEX session_watch_cursors_pending ON session_watch_cursors (watcher_key) WHERE material > last_seen;
`,
};
