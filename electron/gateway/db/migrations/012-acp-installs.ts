import type { Migration } from '../migrate';

// ACP agents installed from the registry: which profile came from which registry entry, how it
// was distributed, where it came from, and for a downloaded binary the SHA-256 of the archive
// and the folder it was unpacked into (the registry carries no checksum; this is what was got).
// The distribution (binary, npx, uvx) is checked in code, like every enum since 009.
export const migration012: Migration = {
  version: 12,
  name: 'acp-installs',
  up: `
CREATE TABLE acp_installs (
  profile_id    TEXT PRIMARY KEY,
  registry_id   TEXT NOT NULL,
  version       TEXT NOT NULL,
  distribution  TEXT NOT NULL,
  source        TEXT NOT NULL,
  sha256        TEXT,
  size          INTEGER,
  install_dir   TEXT,
  installed_at  INTEGER NOT NULL
) STRICT;
`,
};
