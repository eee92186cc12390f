import type { Migration } from '../migrate';

// Sessions started from the app: the working folder a session runs in (the ACP agent's session
// folder; what diffs are shown relative to), and the archived flag that hides a session from the
// fleet tree without deleting anything.
export const migration011: Migration = {
  version: 11,
  name: 'session-folder',
  up: `
ALTER TABLE sessions ADD COLUMN cwd TEXT;
ALTER TABLE sessions ADD COLUMN archived INTEGER NOT NULL DEFAULT 0;
`,
};
