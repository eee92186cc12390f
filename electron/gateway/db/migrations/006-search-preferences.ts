import type { Migration } from '../migrate';

// Search across sessions, and the person's UI preferences (theme, notifications).
//
// Search: an FTS5 index over the message text of transcripts. It is an
// external-content index of `session_messages` kept by triggers, so every insert, compaction
// (update/delete) and clear changes the index inside the same statement, hence the same
// transaction, as the message itself; a crash can never leave the two apart. `rebuild` indexes
// the messages written before this migration.
export const migration006: Migration = {
  version: 6,
  name: 'search-preferences',
  up: `
CREATE VIRTUAL TABLE session_messages_fts USING fts5(
  text,
  content = 'session_messages',
  content_rowid = 'id',
  tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER session_messages_fts_insert AFTER INSERT ON session_messages BEGIN
  INSERT INTO session_messages_fts (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER session_messages_fts_delete AFTER DELETE ON session_messages BEGIN
  INSERT INTO session_messages_fts (session_messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER session_messages_fts_update AFTER UPDATE OF text ON session_messages BEGIN
  INSERT INTO session_messages_fts (session_messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO session_messages_fts (rowid, text) VALUES (new.id, new.text);
END;
INSERT INTO session_messages_fts (session_messages_fts) VALUES ('rebuild');

-- One JSON value per preference name; names and values are checked by electron/gateway/person/preferences.ts.
CREATE TABLE ui_preferences (
  name        TEXT PRIMARY KEY,
  value       TEXT NOT NULL,
  updated_at  INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
`,
};
