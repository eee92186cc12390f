import type { McpServer } from '@agentclientprotocol/sdk';
import type { AcpProfile } from '../../../../shared/ipc/types';
import type { CommandLine } from '../../trust/consent';
import type { StartProgress } from './start-watch';
import type { AgentHost } from './host';
import type { TerminalHooks } from './terminals';
import type { TurnUsage } from './usage';

export type AcpToolStatus = 'pending' | 'in_progress' | 'completed' | 'failed';

export interface AcpPlanEntry {
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
  priority: 'high' | 'medium' | 'low';
}

/**
 * What an ACP child streams while a prompt runs, reduced to what Sightline shows. Tool call
 * updates always carry a title and status: the protocol lets an update omit them, so the client
 * fills them in from the last known state of that tool call.
 */
/** A file an agent changed, as it reported it in a tool call (`diff` content): absolute path. */
export interface AcpDiff {
  path: string;
  /** Absent or null: a new file. */
  oldText: string | null;
  newText: string;
}

export type AcpUpdate =
  | { kind: 'message'; text: string }
  | { kind: 'thought'; text: string }
  | { kind: 'tool_call'; toolCallId: string; title: string; status: AcpToolStatus; diffs?: AcpDiff[] }
  | { kind: 'tool_call_update'; toolCallId: string; title: string; status: AcpToolStatus; diffs?: AcpDiff[] }
  | { kind: 'plan'; entries: AcpPlanEntry[] };

export type AcpPermissionOptionKind = 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';

export interface AcpPermissionOption {
  optionId: string;
  name: string;
  kind: AcpPermissionOptionKind;
}

/** A permission question from the agent, surfaced to the person. */
export interface AcpPermissionRequest {
  /** Unique within the gateway process, for matching the person's answer to the question. */
  id: string;
  toolCallId: string;
  title: string;
  options: AcpPermissionOption[];
}

export type AcpPermissionDecision = { outcome: 'selected'; optionId: string } | { outcome: 'cancelled' };

export type AcpRunOutcome = 'completed' | 'error' | 'timeout' | 'cancelled';

/** How a prompt ended, and what the agent reported about it (tokens, cost, context). */
export type AcpRunResult = {
  outcome: AcpRunOutcome;
  stopReason?: string;
  reason?: string;
  usage?: TurnUsage;
};

export interface AcpLogger {
  warn(message: string, fields?: object): void;
}

export interface AcpChildOptions {
  profile: AcpProfile;
  /** The session working directory: the agent's session cwd and the fs/terminal confinement root. */
  cwd: string;
  logger?: AcpLogger;
  onUpdate: (update: AcpUpdate) => void;
  onPermission: (request: AcpPermissionRequest) => Promise<AcpPermissionDecision>;
  /**
   * The MCP servers for `session/new`, given what the agent's `initialize` answer said it takes
   * (`mcpCapabilities.http`). Absent: none.
   */
  mcpServers?: (caps: { http: boolean }) => Promise<McpServer[]>;
  /** Bytes of stderr kept for `stderrTail()` (default 64 KiB). */
  stderrLimitBytes?: number;
  /** Budget for spawn + initialize + session/new (default 120 s). */
  startTimeoutMs?: number;
  /** How long a cancelled prompt may take to acknowledge before the process is stopped (default 5 s). */
  cancelGraceMs?: number;
  /** SIGTERM to SIGKILL delay on close (default 1.5 s). */
  killGraceMs?: number;
  /** Runs with the exact command line before the process is spawned; throwing refuses the start. */
  beforeSpawn?: (command: CommandLine) => Promise<void>;
  /** The agent's terminal commands: the person's say and the transcript entries. */
  terminals?: TerminalHooks;
  /** The start's steps and stderr lines while the person waits for spawn/initialize/session/new. */
  onProgress?: StartProgress;
  /** Where the agent runs (default: this machine; a paired node: node-host.ts). */
  host?: AgentHost;
}
