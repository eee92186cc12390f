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

import type { Scheduler } from './scheduler';
export type { Scheduler };

// The views the renderer also sees are defined once, in shared/ipc/types.ts.
import type {
  CatalogEntry,
  CatalogProvider,
  GatewayEvent,
  NodeInfo,
  ProviderId,
  SessionImpact,
} from '../../shared/ipc/types';
export type { CatalogEntry, CatalogProvider, GatewayEvent, NodeInfo, ProviderId };
export type {
  AcpProfile,
  ConsentKind,
  ConsentRequestView,
  ContextUse,
  Cost,
  CursorRow,
  FileDiff,
  Goal,
  GoalStatus,
  MessageRole,
  PermissionRequestView,
  RunInfo,
  RunStatus,
  SessionImpact,
  SecretStorageInfo,
  ToolCallRecord,
  TranscriptMessage,
} from '../../shared/ipc/types';

export interface CatalogRoots {
  claude?: string;
  codex?: string;
  opencode?: string;
  pi?: string;
}

export interface GatewayOptions {
  dataDir: string;
  /** Addition (issue 26): where sessions' worktrees are made (default <dataDir>/worktrees). */
  worktreesDir?: string;
  now?: () => number;
  /**
   * Addition: runs every gateway timer (wake grace, heartbeats, wake coalescing, the shared
   * database poll, run timeouts, the monitor cadence). Default: real timers. Tests pass a fake
   * one that moves with their clock.
   */
  scheduler?: Scheduler;
  autoStart?: boolean;
  catalogRoots?: CatalogRoots;
  /** Addition: where log lines go (default: console). Never receives message content. */
  logger?: Logger;
  /** Where the ACP registry index is fetched; default the live index. */
  acpRegistryUrl?: string;
  /**
   * Addition, for tests only: registry downloads over plain http from a loopback host (a local
   * test server). Everything else is HTTPS only, whatever this says.
   */
  acpRegistryAllowLoopbackHttp?: boolean;
  /** Addition: the largest agent archive the registry install downloads (default 512 MiB). */
  acpMaxDownloadBytes?: number;
  /**
   * Addition (paired nodes, issue 19): the ssh client (default ["ssh"]; e.g. with -F <config>),
   * the node file installed on remotes (default: none; the app passes out/node/sightline-node.mjs),
   * and how long a node may take to start and to answer one request (default 20 s each).
   */
  nodes?: {
    sshCommand?: readonly string[];
    bundle?: string;
    helloTimeoutMs?: number;
    requestTimeoutMs?: number;
  };
  /**
   * Addition: where the stdio MCP shim is, for hosts that bundle the gateway (the Electron app
   * passes its unpacked copy) and, optionally, the Node that runs it. Default: the shim beside
   * the gateway's sources, run by this Node.
   */
  mcpShim?: { script: string; node?: string };
  /**
   * Addition: how secrets are sealed at rest. Electron passes its safeStorage; without it (browser
   * mode, scripts) they are stored as they are and `gateway.secrets.info` says so.
   */
  secrets?: SecretsOptions;
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
  /** `cwd` is an addition: the session's working folder. */
  create(input: {
    key: string;
    agentId?: string;
    parentKey?: string;
    label?: string;
    cwd?: string;
  }): SessionInfo;
  get(key: string, agentId?: string): SessionInfo | undefined;
  list(): SessionInfo[];
  /** Addition: the adopted sessions only, in list order (the inbox's upstream alerts). */
  listAdopted?(): SessionInfo[];
  reset(key: string): void;
  delete(key: string, agentId?: string): void;
}

/** `sessions.start` (contract additions): what a person starts from the app. */
export interface StartInput {
  /** A configured model agent, or */
  agentId?: string;
  /** an ACP profile, or */
  acpProfileId?: string;
  /** Addition: another runner given to createGateway, by name (exactly one of the three). */
  runtime?: string;
  /** Working folder; must exist. */
  cwd?: string;
  label?: string;
  /** The first human turn. */
  message: string;
  /** The parent watches the new session (cursor seeded as for a spawn). */
  parentKey?: string;
  /** Addition: the person's account on a shared gateway (`npm run serve`); default `local-user`. */
  actorId?: string;
  /**
   * Issue 26: 'worktree' starts the agent in a new git worktree on a new branch (cwd must lie in
   * a git repository with at least one commit); 'none' starts in cwd. Default: a worktree for a
   * real agent (ACP) whose cwd is in a repository, else in place.
   */
  isolation?: 'worktree' | 'none';
  /** The branch or commit the worktree starts from (default HEAD's branch). */
  base?: string;
  /** Addition: the folder the person keeps worktrees in (default: the data folder's worktrees/). */
  worktreesFolder?: string;
  /** A paired node's id: the ACP agent runs there, in `cwd` on that machine (issue 30.1). */
  node?: string;
}

/** The gateway's `sessions`: the core operations plus `start`, which runs through the spawn path. */
export interface GatewaySessions extends Sessions {
  start(input: StartInput): Promise<SessionInfo>;
  /** Addition: what a reset or delete removes (transcript, cursors, links, runs). */
  impact(key: string): SessionImpact;
  /** Addition: hides a session from the fleet tree (or shows it again); nothing is deleted. */
  archive(key: string, archived?: boolean): SessionInfo;
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
// Additions beyond the fixed contract: agents as the gateway stores them (the ACP profile, the
// views and push events shared with the renderer are re-exported from shared/ipc above).
// ---------------------------------------------------------------------------------------------

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

export interface GatewayEvents {
  on(listener: (event: GatewayEvent) => void): () => void;
}

// Declared here, not in trust/, so this file stays a leaf that every layer may import.
/** The part of Electron's safeStorage the gateway uses. */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only: `basic_text` means a hard-coded key, i.e. no real keyring. */
  getSelectedStorageBackend?(): string;
}

export interface SecretsOptions {
  safeStorage?: SafeStorageLike;
  /** Defaults to process.platform; tests pass 'linux' to check the secret-service case. */
  platform?: NodeJS.Platform;
}

/** The key of StateCore.versions(): agent ids never hold ':', so this is unambiguous. */
export const versionKey = (sessionKey: string, agentId: string): string => `${agentId}:${sessionKey}`;
