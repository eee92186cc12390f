import type { Migration } from '../migrate';

// The catalog's index of upstream transcripts (issue 31): what a listing found in one unit (a
// transcript file), kept while the unit's stamp (size, modification time, inode, the provider's
// format) is the same, so a listing re-reads only the files that changed. A cache: every row can
// be rebuilt from the files, and a row whose unit is gone is dropped by the next listing.
export const migration021: Migration = {
  version: 21,
  name: 'catalog-index',
  up: `
CREATE TABLE catalog_index (
  provider TEXT NOT NULL,
  unit     TEXT NOT NULL,
  stamp    TEXT NOT NULL,
  found    TEXT NOT NULL,
  PRIMARY KEY (provider, unit)
) STRICT, WITHOUT ROWID;
`,
};
