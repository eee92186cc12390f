import type { Migration } from '../migrate';

// Where transcript messages came from, beyond who wrote them: what an ACP agent changed (the
// `diff` content of its tool calls: path, old and new text), so the transcript shows it as a diff
// and a session says how many files its agent changed; and, for an adopted session, the upstream
// tool a message was read from by the monitor (its live transcript).
export const migration013: Migration = {
  version: 13,
  name: 'transcript-sources',
  up: `
ALTER TABLE session_messages ADD COLUMN diffs TEXT;
ALTER TABLE session_messages ADD COLUMN upstream TEXT;
`,
};
