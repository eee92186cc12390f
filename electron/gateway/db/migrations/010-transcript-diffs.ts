import type { Migration } from '../migrate';

// What an ACP agent changed: the `diff` content of its tool calls (path, old and new text), kept
// with the tool call's transcript message so the transcript can show it as a diff and a session
// can say how many files its agent changed.
export const migration010: Migration = {
  version: 10,
  name: 'transcript-diffs',
  up: `
ALTER TABLE session_messages ADD COLUMN diffs TEXT;
`,
};
