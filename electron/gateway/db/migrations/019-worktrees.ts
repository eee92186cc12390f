import type { Migration } from '../migrate';

// Issue 26: a session's git worktree. The row is written before `git worktree add` runs and before
// the session exists (state `creating`), so a crash in between leaves a record that start-up uses
// to remove what was made; it becomes `ready` once the session is committed. No foreign key to
// sessions for that reason: the worktrees service removes a row when its session goes, after the
// person chose to keep or discard the folder (nothing on disk goes silently).
export const migration019: Migration = {
  version: 19,
  name: 'worktrees',
  up: `
CREATE TABLE worktrees (
  session_key  TEXT PRIMARY KEY,
  path         TEXT NOT NULL UNIQUE,
  branch       TEXT NOT NULL,
  base         TEXT NOT NULL,
  base_commit  TEXT NOT NULL,
  repository   TEXT NOT NULL,
  state        TEXT NOT NULL, -- 'creating' | 'ready' (checked in code: repository.ts)
  created_at   INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
`,
};
