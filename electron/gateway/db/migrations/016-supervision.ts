import type { Migration } from '../migrate';

// The supervisor's view (issue 17): when the person last opened each session (for the
// `done — unseen` status), and the history of notices watchers read with the session_status
// call that reconciled each one. Notice texts are the spec's fixed system lines (keys and a
// version), never message content. Both tables are bounded by their owners.
export const migration016: Migration = {
  version: 16,
  name: 'supervision',
  up: `
CREATE TABLE ui_session_seen (
  session_key  TEXT PRIMARY KEY,
  seen_at      INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE notice_deliveries (
  id                        INTEGER PRIMARY KEY AUTOINCREMENT,
  watcher_key               TEXT NOT NULL,
  target_key                TEXT NOT NULL,
  text                      TEXT NOT NULL,
  changes_since             INTEGER NOT NULL,
  drained_at                INTEGER NOT NULL,
  after_message_id          INTEGER NOT NULL,
  reconciled_version        INTEGER,
  reconciled_changes_since  INTEGER,
  reconciled_at             INTEGER
) STRICT;
CREATE INDEX notice_deliveries_by_watcher ON notice_deliveries (watcher_key, after_message_id);
CREATE INDEX notice_deliveries_open ON notice_deliveries (watcher_key, target_key) WHERE reconciled_at IS NULL;
`,
};
