import type { Migration } from '../migrate';

// A node's id is bound to its SSH host key at pairing (issue 29.6): the fingerprints of the keys
// the person's known_hosts held for its destination then. NULL for nodes paired before (bound at
// their next connection) and for nodes reached by a local command (no SSH).
export const migration018: Migration = {
  version: 18,
  name: 'node-host-key',
  up: `ALTER TABLE catalog_nodes ADD COLUMN host_key TEXT;`,
};
