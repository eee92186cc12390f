// What an MCP credential's session may see and act on through the session tools (contract:
// `mcp.issue(key, { reach })`, issue 29.2). Settings shows REACH_RULES next to each choice, and a
// call outside reach fails with the same words.

export const REACHES = ['tree', 'agent', 'all'] as const;
export type Reach = (typeof REACHES)[number];

/** Default for a credential a person issues for an outside agent. */
export const DEFAULT_ISSUED_REACH: Reach = 'tree';
/** Default for an ACP child's credential (its profile may say otherwise): as native sub-agents. */
export const DEFAULT_ACP_REACH: Reach = 'agent';

export const REACH_RULES: Record<Reach, string> = {
  tree: 'its own session and the sessions under it (spawned by it, recursively)',
  agent: 'every session of its own agent',
  all: 'every session',
};

export const isReach = (v: unknown): v is Reach =>
  typeof v === 'string' && (REACHES as readonly string[]).includes(v);

/** Wider reaches need the person's say. */
export const REACH_WIDTH: Record<Reach, number> = { tree: 0, agent: 1, all: 2 };
