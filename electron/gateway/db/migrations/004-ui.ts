import type { Migration } from '../migrate';

// The renderer's own durable state: inbox items the person dismissed (notices and
// upstream_missing alerts). Ids are opaque strings built by electron/gateway/api.
export const migration004: Migration = {
  version: 4,
  name: 'ui',
  up: `
CREATE TABLE ui_inbox_dismissals (
  item_id       TEXT PRIMARY KEY,
  dismissed_at  INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX ui_inbox_dismissals_by_age ON ui_inbox_dismissals (dismissed_at);
`,
};
