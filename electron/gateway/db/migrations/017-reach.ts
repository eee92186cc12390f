import type { Migration } from '../migrate';

// Least privilege (issue 29.2): what an MCP credential's session may see and act on through the
// session tools. Credentials issued before this had no limit; they get the new default, `tree`
// (their own session and the sessions under it): a wider reach is the person's choice, asked for.
// An ACP profile says what its agents' credentials reach (default `agent`, as native sub-agents).
// The values are checked in code (shared/ipc/reach.ts), as every kind is: the schema names no enum.
export const migration017: Migration = {
  version: 17,
  name: 'reach',
  up: `
ALTER TABLE mcp_credentials ADD COLUMN reach TEXT NOT NULL DEFAULT 'tree';
ALTER TABLE acp_profiles ADD COLUMN reach TEXT NOT NULL DEFAULT 'agent';
`,
};
