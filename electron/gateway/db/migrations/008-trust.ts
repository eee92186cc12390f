import type { Migration } from '../migrate';

// Trust at the edges (issue 14): what the person allowed to run (`consents`: one row per command
// line they confirmed, keyed by what it is for), and per ACP profile whether agents may start it,
// whether its terminal commands need the person, and a revision that changes with its command line
// (a changed command line is a new consent key, so it is asked again). An adopted session's link
// keeps the working folder the person saw at adoption: "continue" runs there and nowhere else.
export const migration008: Migration = {
  version: 8,
  name: 'trust',
  up: `
CREATE TABLE consents (
  key          TEXT PRIMARY KEY,
  summary      TEXT NOT NULL,
  approved_at  INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

ALTER TABLE acp_profiles ADD COLUMN allow_agents INTEGER NOT NULL DEFAULT 0 CHECK (allow_agents IN (0, 1));
ALTER TABLE acp_profiles ADD COLUMN ask_terminal INTEGER NOT NULL DEFAULT 0 CHECK (ask_terminal IN (0, 1));
ALTER TABLE acp_profiles ADD COLUMN command_rev TEXT NOT NULL DEFAULT '';

ALTER TABLE catalog_upstream_links ADD COLUMN cwd TEXT;
`,
};
