import type { Migration } from '../migrate';

// The session tools over MCP. A credential lets one MCP client act as one session; only the
// SHA-256 of its secret is kept (the secret is shown once and never stored). `kind` says who holds
// it: `acp` for an ACP child's own agent (replaced on every start of that agent), `external` for an
// agent a person runs outside Sightline (kept until revoked). `port` is the endpoint's port when
// the credential was issued, so Settings can say when a client's configured URL went stale.
// `mcp_endpoint` keeps the port the server listens on, so a restart reuses it when it is free.
// A credential goes with its session (foreign key, ON DELETE CASCADE, as in 009); `kind` is
// checked in code, like every other enum since 009.
export const migration010: Migration = {
  version: 10,
  name: 'mcp',
  up: `
CREATE TABLE mcp_credentials (
  id            TEXT PRIMARY KEY,
  session_key   TEXT NOT NULL REFERENCES sessions (key) ON DELETE CASCADE,
  kind          TEXT NOT NULL,
  label         TEXT,
  secret_hash   TEXT NOT NULL UNIQUE,
  port          INTEGER NOT NULL,
  created_at    INTEGER NOT NULL,
  last_used_at  INTEGER,
  client        TEXT
) STRICT;
CREATE INDEX mcp_credentials_by_session ON mcp_credentials (session_key);

CREATE TABLE mcp_endpoint (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  port        INTEGER NOT NULL CHECK (port BETWEEN 1 AND 65535),
  updated_at  INTEGER NOT NULL
) STRICT;
`,
};
