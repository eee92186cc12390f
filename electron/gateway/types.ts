// The gateway's programmatic surface (../shared/spec/gateway-contract.md). Names and shapes of
// the contract are fixed; additions are marked as such.
import type {
  ActorType,
  ChangesSince,
  CursorPositions,
  EventKind,
  NoticeEntry,
  SessionInfo,
  StateEvent,
} from '../../shared/domain';

export type { ActorType, ChangesSince, CursorPositions, EventKind, NoticeEntry, SessionInfo, StateEvent };

export interface CatalogRoots {
  claude?: string;
  codex?: string;
  opencode?: string;
  pi?: string;
}

export interface GatewayOptions {
  dataDir: string;
  now?: () => number;
  autoStart?: boolean;
  catalogRoots?: CatalogRoots;
  /** Addition: where log lines go (default: console). Never receives message content. */
  logger?: Logger;
}

export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export interface RecordInput {
  sessionKey: string;
  agentId?: string;
  kind: EventKind;
  actorType: ActorType;
  actorId?: string;
  runId?: string;
  summary: string;
  payload?: Record<string, unknown>;
  occurredAt?: number;
  dedupeKey?: string;
  watchers?: string[];
}

export interface Sessions {
  create(input: { key: string; agentId?: string; parentKey?: string; label?: string }): SessionInfo;
  get(key: string, agentId?: string): SessionInfo | undefined;
  list(): SessionInfo[];
  reset(key: string): void;
  delete(key: string, agentId?: string): void;
}

export interface SessionState {
  record(input: RecordInput): StateEvent | undefined;
  registerWatch(watcher: string, target: string, opts?: { targetAgentId?: string }): boolean;
  acknowledge(watcher: string, targets: string[]): void;
  version(sessionKey: string, agentId?: string): number;
  changesSince(sessionKey: string, after: number, opts?: { agentId?: string; limit?: number }): ChangesSince;
  cursor(watcher: string, target: string): CursorPositions | undefined;
  sweep(): void;
  prune(): void;
}

export interface NoticeQueue {
  peek(sessionKey: string): NoticeEntry[];
  drain(sessionKey: string): NoticeEntry[];
  enqueue(sessionKey: string, entry: NoticeEntry): boolean;
}

export type ToolResult = { ok: true; details: unknown; text: string } | { ok: false; error: string };

export interface Tools {
  call(callerSessionKey: string, tool: string, args: unknown): Promise<ToolResult>;
}

export interface Human {
  send(sessionKey: string, text: string, opts?: { channel?: string }): Promise<void>;
}

export interface CatalogEntry {
  provider: CatalogProvider;
  threadId: string;
  title: string;
  cwd?: string;
  createdAt?: number;
  lastActivityAt?: number;
  sizeBytes: number;
  /** Addition: true when this thread is adopted now. */
  adopted?: boolean;
}

export type CatalogProvider = 'claude' | 'codex' | 'opencode' | 'pi';

// The contract makes everything synchronous unless it says Promise: list() and adopt() are
// synchronous (awaiting them works too); listAsync() is the addition the UI uses so that a scan
// of thousands of transcripts never blocks the main process.
export interface Catalog {
  list(): CatalogEntry[];
  listAsync(): Promise<CatalogEntry[]>;
  adopt(input: { provider: CatalogProvider; threadId: string }): SessionInfo;
  tick(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Additions beyond the fixed contract: the runtime, the app-facing views and the push events.
// The renderer's IPC/WebSocket contract (shared/ipc) is built on these.
// ---------------------------------------------------------------------------------------------

export type ProviderId = 'scripted' | 'openai' | 'anthropic';

export interface AgentConfig {
  id: string;
  name: string;
  provider: ProviderId;
  /** Provider settings: model, baseUrl, apiKey (never sent to the renderer), scripted role. */
  providerSettings: Record<string, string>;
  systemPrompt: string;
  /** Heartbeat interval of the agent's main session; 0 disables the timed heartbeat. */
  heartbeatSeconds: number;
  mainKey: string;
}

export type RunStatus = 'queued' | 'running' | 'idle' | 'failed' | 'cancelled';

export interface RunInfo {
  runId: string;
  sessionKey: string;
  status: RunStatus;
  startedAt: number;
  endedAt?: number;
  inputTokens: number;
  outputTokens: number;
  /** Set when the run ended badly. */
  outcome?: 'error' | 'timeout' | 'cancelled';
  error?: string;
}

export type MessageRole = 'user' | 'assistant' | 'system' | 'tool';

export interface ToolCallRecord {
  id: string;
  name: string;
  arguments: unknown;
}

export interface TranscriptMessage {
  id: number;
  sessionKey: string;
  role: MessageRole;
  actorType: ActorType;
  actorId?: string;
  text: string;
  toolCalls?: ToolCallRecord[];
  toolCallId?: string;
  toolName?: string;
  inputTokens?: number;
  outputTokens?: number;
  createdAt: number;
}

export type GoalStatus = 'active' | 'paused' | 'blocked' | 'done';

export interface Goal {
  objective: string;
  status: GoalStatus;
  updatedAt: number;
}

export interface CursorRow extends CursorPositions {
  watcher: string;
  target: string;
  targetVersion: number;
  pending: boolean;
  /** The queued notice text for this pair, when one is in the watcher's queue. */
  noticeText?: string;
  updatedAt: number;
}

export type GatewayEvent =
  | { type: 'state:event'; sessionKey: string; agentId: string; event: StateEvent }
  | { type: 'notice:queued'; sessionKey: string; entry: NoticeEntry }
  | { type: 'notice:drained'; sessionKey: string; entries: NoticeEntry[] }
  | { type: 'cursor:changed'; watcher: string; target: string }
  | { type: 'session:changed'; sessionKey: string }
  | { type: 'session:deleted'; sessionKey: string }
  | { type: 'run:changed'; run: RunInfo }
  | { type: 'transcript:appended'; message: TranscriptMessage }
  | { type: 'wake'; sessionKey: string; reason: 'notice' | 'heartbeat' }
  | { type: 'catalog:changed' }
  | { type: 'acp:permission'; request: PermissionRequestView }
  | { type: 'acp:permission-resolved'; requestId: string; sessionKey: string; decision: string };

/** A permission question from an ACP child, waiting for the person (and nobody else). */
export interface PermissionRequestView {
  id: string;
  sessionKey: string;
  title: string;
  options: { optionId: string; name: string; kind: string }[];
  createdAt: number;
}

export interface AcpProfileConfig {
  id: string;
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

export interface GatewayEvents {
  on(listener: (event: GatewayEvent) => void): () => void;
}
