// Paired nodes (issue 19).
// Declarations only; shared/ipc/types.ts re-exports every domain file.

/** A paired node (issue 19): another machine (or a second set of roots) whose catalog Sightline reads. */
export interface NodeInfo {
  id: string;
  name: string;
  ssh?: string;
  command?: string[];
  state: 'online' | 'offline';
  lastCheckAt?: number;
  offlineSince?: number;
  sessions?: number;
  /** Additions: the command run over SSH instead of the bundled node file. */
  nodeCommand?: string[];
  /** The node runs upstream CLIs for "continue" (started with --allow-continue). */
  allowContinue: boolean;
  /** Why it is offline (or why the last attempt failed), for people. */
  lastError?: string;
  /** Node.js version on the node, and the tools it serves (unavailable ones with the reason). */
  nodeVersion?: string;
  providers?: { id: string; label: string; available: boolean; reason?: string }[];
}
