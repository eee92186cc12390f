import type { Migration } from '../migrate';

// The agent runtime: configured agents, durable transcripts (message content lives here, never in
// the signal log), goals and runs.
export const migration002: Migration = {
  version: 2,
  name: 'runtime',
  up: `
CREATE TABLE agents (
  id                 TEXT PRIMARY KEY,
  name               TEXT NOT NULL,
  provider           TEXT NOT NULL CHECK (provider IN ('scripted','openai','anthropic')),
  provider_settings  TEXT NOT NULL DEFAULT '{}',
  system_prompt      TEXT NOT NULL DEFAULT '',
  heartbeat_seconds  INTEGER NOT NULL DEFAULT 0 CHECK (heartbeat_seconds >= 0),
  main_key           TEXT NOT NULL,
  created_at         INTEGER NOT NULL,
  updated_at         INTEGER NOT NULL
) STRICT;

CREATE TABLE session_messages (
  id             INTEGER PRIMARY KEY AUTOINCREMENT,
  session_key    TEXT NOT NULL,
  role           TEXT NOT NULL CHECK (role IN ('user','assistant','system','tool')),
  actor_type     TEXT NOT NULL CHECK (actor_type IN ('human','agent','system')),
  actor_id       TEXT,
  text           TEXT NOT NULL,
  tool_calls     TEXT,
  tool_call_id   TEXT,
  tool_name      TEXT,
  input_tokens   INTEGER,
  output_tokens  INTEGER,
  created_at     INTEGER NOT NULL
) STRICT;
CREATE INDEX session_messages_by_session ON session_messages (session_key, id);

CREATE TABLE session_goals (
  session_key  TEXT PRIMARY KEY,
  objective    TEXT NOT NULL,
  status       TEXT NOT NULL CHECK (status IN ('active','paused','blocked','done')),
  updated_at   INTEGER NOT NULL
) STRICT;

CREATE TABLE runs (
  run_id         TEXT PRIMARY KEY,
  session_key    TEXT NOT NULL,
  status         TEXT NOT NULL CHECK (status IN ('queued','running','idle','failed','cancelled')),
  outcome        TEXT CHECK (outcome IN ('error','timeout','cancelled')),
  error          TEXT,
  started_at     INTEGER NOT NULL,
  ended_at       INTEGER,
  input_tokens   INTEGER NOT NULL DEFAULT 0,
  output_tokens  INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX runs_by_session ON runs (session_key, started_at);

CREATE TABLE acp_profiles (
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  command     TEXT NOT NULL,
  args        TEXT NOT NULL DEFAULT '[]',
  env         TEXT NOT NULL DEFAULT '{}',
  cwd         TEXT,
  updated_at  INTEGER NOT NULL
) STRICT;
`,
};
