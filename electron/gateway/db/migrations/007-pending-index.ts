import type { Migration } from '../migrate';

// The pending-cursor index no longer reads `material` in its condition. Every notify append raises
// M on every cursor of its target, and an index whose condition names M was rewritten each time
// (one page per watcher per append). N > L holds exactly when M > L (N freezes at the first
// material event of a notice, acknowledging sets L := N and N := M), and N changes only when a
// notice opens or is acknowledged: the same rows, found by the sweep, at no cost to appends.
export const migration007: Migration = {
  version: 7,
  name: 'pending-index',
  up: `
DROP INDEX session_watch_cursors_pending;
CREATE INDEX session_watch_cursors_pending ON session_watch_cursors (watcher_key) WHERE notified > last_seen;
`,
};
