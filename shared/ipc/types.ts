// The views the renderer sees, defined once for both sides: the gateway's types
// (electron/gateway/types.ts) re-export them, since shared/ never depends on electron/.
// Over 300 lines on purpose: declarations only (no logic), and one file is the one place to look
// up the shape of anything that crosses the IPC boundary.
import type {
  ActorType,
  CursorPositions,
  EventKind,
  NoticeEntry,
  SessionInfo,
  StateEvent,
  StateEventRow,
} from '../domain';
import type { SessionKind } from '../session-keys';

export type { ActorType, EventKind, NoticeEntry, SessionInfo, StateEvent, StateEventRow, SessionKind };

export const PROVIDER_IDS = ['scripted', 'openai', 'anthropic'] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

export const RUN_STATUSES = ['queued', 'running', 'idle', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const GOAL_STATUSES = ['active', 'paused', 'blocked', 'done'] as const;
export type GoalStatus = (typeof GOAL_STATUSES)[number];

export const CATALOG_PROVIDERS = ['claude', 'codex', 'opencode', 'pi'] as const;
export type CatalogProvider = (typeof CATALOG_PROVIDERS)[number];

export type MessageRole = 'user' | 'assistant' | 'system' | 'tool';

export interface RunInfo {
  runId: string;
  sessionKey: string;
  status: RunStatus;
  startedAt: number;
  endedAt?: number;
  inputTokens: number;
  outputTokens: number;
  outcome?: 'error' | 'timeout' | 'cancelled';
  error?: string;
}

export interface ToolCallRecord {
  id: string;
  name: string;
  arguments: unknown;
}

/** A file changed by an agent's tool call, as the agent reported it (ACP `diff` content). */
export interface FileDiff {
  /** Relative to the session's folder when inside it, else absolute. */
  path: string;
  /** null: the file is new. */
  oldText: string | null;
  newText: string;
  /** A side was longer than what a transcript keeps and was cut. */
  truncated?: boolean;
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
  /** Files this tool call changed (ACP agents). */
  diffs?: FileDiff[];
  /** Read from the upstream tool's transcript by the monitor (adopted sessions): its catalog id. */
  upstream?: string;
  inputTokens?: number;
  outputTokens?: number;
  createdAt: number;
}

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
  noticeText?: string;
  updatedAt: number;
}

export interface CatalogEntry {
  provider: CatalogProvider;
  threadId: string;
  title: string;
  cwd?: string;
  createdAt?: number;
  lastActivityAt?: number;
  sizeBytes: number;
  adopted?: boolean;
  /** The machine it is on: this one's host id, or a paired node's id (issue 19). */
  hostId: string;
  /** That machine's name for people. */
  hostName: string;
  /** On a paired node, not this machine. */
  remote: boolean;
}

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

/** Where the catalog looks for one tool's sessions, and how to move it. */
export interface CatalogRootView {
  provider: CatalogProvider;
  path: string;
  exists: boolean;
  /** The environment variable(s) that move this root, set before Sightline starts. */
  env: string;
}

/** An agent as the renderer sees it: the API key never leaves the gateway, only `hasApiKey`. */
export interface AgentView {
  id: string;
  name: string;
  provider: ProviderId;
  model: string;
  baseUrl: string;
  hasApiKey: boolean;
  /** At most the last 4 characters of the stored key (none for short keys). */
  apiKeyHint?: string;
  systemPrompt: string;
  heartbeatSeconds: number;
  mainKey: string;
}

/** An `upstream_missing` event that nobody has re-adopted or dismissed yet. */
export interface UpstreamAlert {
  sequence: number;
  summary: string;
  occurredAt: number;
  channel?: string;
}

export interface SessionView extends SessionInfo {
  kind: SessionKind;
  stateVersion: number;
  /** Status of the latest run; `none` when the session never ran. */
  runStatus: RunStatus | 'none';
  /** Notices queued for this session as a watcher (shown in its next turn). */
  pendingNotices: number;
  alert: UpstreamAlert | null;
  goal: Goal | null;
  /** Token usage summed over all of the session's runs. */
  tokens: { input: number; output: number };
}

export interface FleetSnapshot {
  agents: AgentView[];
  sessions: SessionView[];
  generatedAt: number;
}

export interface TranscriptPage {
  messages: TranscriptMessage[];
  hasMore: boolean;
}

export interface TimelinePage {
  /** Newest first. */
  events: StateEventRow[];
  hasMore: boolean;
  stateVersion: number;
}

export interface WatchersView {
  sessionKey: string;
  stateVersion: number;
  watchedBy: CursorRow[];
  watching: CursorRow[];
}

export type InboxItem =
  | {
      id: string;
      type: 'notice';
      /** The watcher whose queue holds the notice. */
      sessionKey: string;
      /** The session the notice is about (decoded from the context key). */
      targetKey?: string;
      text: string;
    }
  | {
      id: string;
      type: 'upstream_missing';
      sessionKey: string;
      alert: UpstreamAlert;
      /** For re-adopting: parsed from the adopted session key. */
      provider?: CatalogProvider;
      threadId?: string;
      /** The paired node it was on (NodeInfo.id); absent: this machine. */
      hostId?: string;
    };

/** Marks around each matched term in a search line (control characters never shown as such). */
export const SEARCH_MARK = { start: '\u0002', end: '\u0003' } as const;

export type SearchField = 'label' | 'key' | 'message';

export interface SearchMatch {
  field: SearchField;
  /** The matching line, matched terms between SEARCH_MARK.start and SEARCH_MARK.end. */
  line: string;
  /** Message matches: which message, its role and time. */
  messageId?: number;
  role?: MessageRole;
  createdAt?: number;
}

/** Search results of one session. */
export interface SearchGroup {
  sessionKey: string;
  label?: string;
  matches: SearchMatch[];
  /** Further message matches in this session that are not listed. */
  more: number;
}

export interface SearchResult {
  query: string;
  groups: SearchGroup[];
  /** More messages matched than were looked at (the best ones are shown). */
  truncated: boolean;
}

export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

/** Which events notify the person (desktop notification or browser Notification API). */
export interface NotificationPreferences {
  /** A session waits for the person (permission request, question, consent). */
  waiting: boolean;
  /** A run failed. */
  failed: boolean;
  /** A run finished that took at least `longRunSeconds`. */
  finished: boolean;
  longRunSeconds: number;
  /** An adopted session's upstream source disappeared. */
  upstreamMissing: boolean;
}

/** The person's UI preferences, kept by the gateway (browser mode changes port, hence origin). */
export interface Preferences {
  theme: Theme;
  notifications: NotificationPreferences;
}

export const DEFAULT_PREFERENCES: Preferences = {
  theme: 'system',
  notifications: { waiting: true, failed: true, finished: false, longRunSeconds: 120, upstreamMissing: true },
};

export interface DemoFleet {
  coordinatorKey: string;
  workerKeys: string[];
}

export interface AppInfo {
  name: string;
  version: string;
  mode: 'electron' | 'web';
  dataDir: string;
  /** Where secrets live at rest (filled in by the gateway's API). */
  secrets?: SecretStorageInfo;
}

/** A rolling backup of the state database (Settings → Database). */
export interface BackupView {
  /** `sightline-<UTC time>.db`: the id `database:restore` takes. */
  name: string;
  takenAt: number;
  bytes: number;
}

/** What the app did to the database at start-up or on a restore: shown until the next launch. */
export interface DatabaseNotice {
  kind: 'damaged' | 'restored' | 'restore_failed';
  at: number;
  /** The database file. */
  path: string;
  /** damaged: what SQLite reported; restore_failed: why. */
  damage?: string[];
  /** damaged: where the damaged files were moved (…corrupt-<time>, with -wal/-shm). */
  movedTo?: string;
  /** The backup now in use; absent after damage: the app started with an empty database. */
  restoredFrom?: string;
  /** restored: where the database it replaced was kept (…replaced-<time>). */
  keptAs?: string;
  /** damaged: backups that were damaged too and skipped. */
  skipped?: string[];
}

export interface DatabaseStatus {
  path: string;
  /** Newest first. */
  backups: BackupView[];
  /** False where nothing can swap the database (the in-process API used by scripts). */
  canRestore: boolean;
  notice?: DatabaseNotice;
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
  | { type: 'nodes:changed' }
  | { type: 'acp:permission'; request: PermissionRequestView }
  | { type: 'acp:permission-resolved'; requestId: string; sessionKey: string; decision: string }
  | { type: 'consent:request'; request: ConsentRequestView }
  | { type: 'consent:resolved'; requestId: string; allowed: boolean };

/**
 * A question waiting for the person (and nobody else): a permission question from an ACP child,
 * or an agent asking to send into an adopted upstream session (`requestedBy` names it).
 */
export interface PermissionRequestView {
  id: string;
  sessionKey: string;
  title: string;
  options: { optionId: string; name: string; kind: string }[];
  createdAt: number;
  /** The agent session that asks, when it is not the session's own agent. */
  requestedBy?: string;
}

/** What a consent question is about: a program Sightline is about to run for the first time. */
export const CONSENT_KINDS = ['acp-profile', 'continue', 'terminal', 'node'] as const;
export type ConsentKind = (typeof CONSENT_KINDS)[number];

/**
 * A command line waiting for the person's consent (browser mode shows it in the page; Electron
 * asks with a native dialog instead and never sends these). Environment values are masked.
 */
export interface ConsentRequestView {
  id: string;
  kind: ConsentKind;
  /** One line: what the program is for. */
  title: string;
  /** The exact program and arguments that will run. */
  program: string;
  args: string[];
  cwd?: string;
  /** Variables added to the environment; values masked to their last 4 characters at most. */
  env: { name: string; value: string }[];
  sessionKey?: string;
  /** ACP profiles: whether agents may start it too. */
  allowAgents?: boolean;
  createdAt: number;
}

/** Where secrets (API keys, ACP profile environment values) are kept at rest. */
export interface SecretStorageInfo {
  /** True when they are encrypted with the system keyring (Electron's safeStorage). */
  sealed: boolean;
  /** A plain statement for Settings: where they are and why (always set when not sealed). */
  statement: string;
}

/** How to launch one ACP agent: the one profile type (stored and started). */
export interface AcpProfile {
  id: string;
  name: string;
  command: string;
  args: string[];
  /** Added on top of the gateway's environment. Secret: sealed at rest, masked in every view. */
  env: Record<string, string>;
  /** Directory the process starts in (relative to the session working directory); defaults to it. */
  cwd?: string;
  /** Agents (sessions_spawn) may start this profile; default false: only the person may. */
  allowAgents?: boolean;
  /** Ask the person before every terminal command the agent runs; default false. */
  askTerminal?: boolean;
}

/**
 * What the renderer sees of a profile: environment values masked to at most their last 4
 * characters (`••••abcd`); the flags always present.
 */
export interface AcpProfileView {
  id: string;
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  allowAgents: boolean;
  askTerminal: boolean;
}

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

/** One push: the gateway events of (at most) one 16 ms window, in order. */
export interface PushBatch {
  events: GatewayEvent[];
}

/** What deleting (or resetting) a session removes, for the confirmation that says so. */
export interface SessionImpact {
  sessionKey: string;
  /** Transcript messages. */
  messages: number;
  /** Cursors the session holds as a watcher (reset and delete drop them). */
  cursorsHeld: number;
  /** Cursors other sessions hold on it (delete drops them). */
  cursorsOn: number;
  /** Child sessions that lose their parent link on delete. */
  children: number;
  /** An adopted session's upstream link to the tool's transcript (delete removes it). */
  upstreamLink: boolean;
  /** The session's runs (delete removes them). */
  runs: number;
}

/** A folder the person typed: whether a session can run in it. */
export interface FolderCheck {
  path: string;
  ok: boolean;
  /** Why not (missing, not a folder, not absolute). */
  reason?: string;
}

export const REGISTRY_DISTRIBUTIONS = ['binary', 'npx', 'uvx'] as const;
export type RegistryDistribution = (typeof REGISTRY_DISTRIBUTIONS)[number];

/** An agent of the ACP registry (contract: `acp.registry.list()`). `icon` is a data: URL. */
export interface RegistryAgent {
  id: string;
  name: string;
  version: string;
  description: string;
  icon?: string;
  /** What it can be installed as on this platform. */
  distributions: RegistryDistribution[];
}

/** What Settings shows of a registry agent. */
export interface RegistryAgentView extends RegistryAgent {
  repository?: string;
  license?: string;
  authors?: string[];
  /** The profile made from it, when it is installed. */
  installedProfileId?: string;
  installedVersion?: string;
}

/** The registry list and where it came from. */
export interface RegistryListingView {
  agents: RegistryAgentView[];
  /** `live`: fetched now; `cache`: fetched earlier (see fetchedAt); `bundled`: Sightline's offline copy. */
  source: 'live' | 'cache' | 'bundled';
  url: string;
  fetchedAt?: number;
  /** Why the live index was not used. */
  error?: string;
}

/** What installing a registry agent will do, shown to the person before it does it. */
export interface RegistryInstallPlan {
  agentId: string;
  name: string;
  version: string;
  distribution: RegistryDistribution;
  /** The profile it makes (or updates). */
  profileId: string;
  /** The exact command line the profile runs. */
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Binary distributions: what is downloaded, from where, into which folder. */
  download?: { url: string; platform: string; folder: string; maxBytes: number };
  /** Why it cannot be installed here (e.g. npx missing); installing then fails with this. */
  problem?: string;
}

/** A profile installed from the registry: where it came from and what was installed. */
export interface AcpInstallInfo {
  profileId: string;
  registryId: string;
  version: string;
  distribution: RegistryDistribution;
  /** The archive URL, or the npm/PyPI package. */
  source: string;
  /** Binary: SHA-256 of the downloaded archive. */
  sha256?: string;
  size?: number;
  installDir?: string;
  installedAt: number;
}
