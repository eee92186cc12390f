import type { Migration } from '../migrate';

// Catalog providers are modules registered in code (catalog/providers.ts): the link table no
// longer lists their names in a CHECK, so adding a tool needs no table rebuild. The catalog only
// ever writes links for registered providers. Same columns, same rows, same index.
export const migration005: Migration = {
  version: 5,
  name: 'catalog-provider-ids',
  up: `
CREATE TABLE catalog_upstream_links_new (
  session_key     TEXT PRIMARY KEY,
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
  updated_at      INTEGER NOT NULL
) STRICT;
INSERT INTO catalog_upstream_links_new SELECT session_key, provider, thread_id, host_id, source_ref, source_hash,
  generation, marker_offset, marker_inode, marker_json, scan_state, missing_streak, last_scanned_at, created_at,
  updated_at FROM catalog_upstream_links;
DROP TABLE catalog_upstream_links;
ALTER TABLE catalog_upstream_links_new RENAME TO catalog_upstream_links;
CREATE INDEX catalog_upstream_links_by_thread ON catalog_upstream_links (provider, thread_id);
`,
};
