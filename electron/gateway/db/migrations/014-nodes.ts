import type { Migration } from '../migrate';

// Paired nodes (issue 19): the machines whose catalogs this gateway reads, each by the node's
// stable id (the hostId of its sessions' upstream links). How to reach it: an SSH destination
// (with an optional remote command) or a local command line. Whether it is online lives in
// memory; when it was last checked and how many sessions it had are kept for Settings.
export const migration014: Migration = {
  version: 14,
  name: 'nodes',
  up: `
CREATE TABLE catalog_nodes (
  id                 TEXT PRIMARY KEY,
  name               TEXT NOT NULL,
  ssh                TEXT,
  command_json       TEXT,
  node_command_json  TEXT,
  allow_continue     INTEGER NOT NULL DEFAULT 0,
  sessions_seen      INTEGER,
  last_check_at      INTEGER,
  created_at         INTEGER NOT NULL,
  updated_at         INTEGER NOT NULL,
  CHECK ((ssh IS NULL) <> (command_json IS NULL))
) STRICT;
CREATE INDEX catalog_upstream_links_by_host ON catalog_upstream_links (host_id);
`,
};
