import type { Migration } from '../migrate';

// An adopted session's upstream source as the catalog found it (the transcript file or database a
// tool writes), kept on the session: the upstream link goes when the source vanishes, and the
// alert must still name what vanished (issue 25.5).
export const migration022: Migration = {
  version: 22,
  name: 'session-source',
  up: `
ALTER TABLE sessions ADD COLUMN source TEXT;
`,
};
