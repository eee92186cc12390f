// Sightline's MCP endpoint and its credentials.
// Declarations only; shared/ipc/types.ts re-exports every domain file.

import type { Reach } from './reach';

/** An MCP credential as Settings shows it: who it acts as and when it was used, never its secret. */
export interface McpCredentialView {
  id: string;
  sessionKey: string;
  /** The session's label, when it has one. */
  sessionLabel?: string;
  label?: string;
  /** `acp`: an ACP child's own agent (automatic); `external`: minted in Settings. */
  kind: 'acp' | 'external';
  createdAt: number;
  /** When a client last called Sightline with it. */
  lastUsedAt?: number;
  /** The MCP clientInfo name of that client (e.g. "claude-code"). */
  client?: string;
  /** The endpoint's port when it was issued: a client configured then uses this port. */
  issuedPort: number;
  /** What its session may see and act on through the session tools (shared/ipc/reach.ts). */
  reach: Reach;
}

export interface McpView {
  /** Where the endpoint listens now; absent while it is not started (no credential yet). */
  url?: string;
  port?: number;
  credentials: McpCredentialView[];
}

/** A fresh credential. Its secret is shown once here and never sent to the renderer again. */
export interface McpIssuedView {
  id: string;
  sessionKey: string;
  secret: string;
  url: string;
  /** The stdio shim's command line (it reads the secret from SIGHTLINE_MCP_SECRET). */
  command?: string[];
}
