// Sessions as the renderer sees them: runs, transcripts, goals, status, live output, the fleet.
// Declarations only; shared/ipc/types.ts re-exports every domain file.
import type { ActorType, SessionInfo, StateEventRow } from '../domain';
import type { SessionKind } from '../session-keys';
import type { NoticeDelivery } from './watchers';
import type { WorktreeStats } from './worktrees';

export const PROVIDER_IDS = ['scripted', 'openai', 'anthropic'] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

export const RUN_STATUSES = ['queued', 'running', 'idle', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const GOAL_STATUSES = ['active', 'paused', 'blocked', 'done'] as const;
export type GoalStatus = (typeof GOAL_STATUSES)[number];

export type MessageRole = 'user' | 'assistant' | 'system' | 'tool';

/** Money as an agent reported it (ACP `usage_update` cost): an amount in an ISO 4217 currency. */
export interface Cost {
  amount: number;
  currency: string;
}

/** An agent's context window as it last reported it: tokens in context, of the window's size. */
export interface ContextUse {
  used: number;
  size: number;
}

export interface RunInfo {
  runId: string;
  sessionKey: string;
  status: RunStatus;
  startedAt: number;
  endedAt?: number;
  /** As the model or the agent reported them; 0 when it reported none. */
  inputTokens: number;
  outputTokens: number;
  /** What the run cost, as the agent reported it (absent: it reported no cost). */
  cost?: Cost;
  /** The agent's context window at the run's end, as it last reported it. */
  context?: ContextUse;
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

/**
 * What a session needs from the person, derived by the gateway (issue 17.2): `waiting` for an
 * answer (a permission request, a question, consent to continue), `running` (also queued),
 * `failed` (the latest run failed or timed out), `done_unseen` (a run finished since the person
 * last opened the session), `idle`.
 */
export const SESSION_STATUSES = ['waiting', 'failed', 'running', 'done_unseen', 'idle'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export interface SessionStatusView {
  status: SessionStatus;
  /** waiting: what the session waits for; failed: the run's error. */
  reason?: string;
  /** The run the status is about (running, failed, done_unseen). */
  runId?: string;
  /** When the session entered this status (ms). */
  since: number;
  /** failed: whether its runner can run the turn again (Retry), as the gateway's runner answers. */
  retryable?: boolean;
}

export const LIVE_STREAMS = ['text', 'thinking', 'tool'] as const;
/** A running turn's output before it lands in the transcript: assistant text, thinking, a tool call starting. */
export type LiveStream = (typeof LIVE_STREAMS)[number];

/** A session's output while its current step runs (bounded tails). */
export interface LiveOutput {
  runId: string;
  text: string;
  thinking: string;
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
  /** Cost summed over the session's runs, one entry per currency; absent when no agent reported one. */
  costs?: Cost[];
  /** The context window of the session's latest run that reported one. */
  context?: ContextUse;
  /** What the session needs from the person (derived in the gateway). */
  status: SessionStatusView;
  /** The last line of the session's activity (live output, a tool call, the last reply). */
  activity?: string;
  /** Issue 26: the worktree's branch and the counts of its last diff (present with a worktree). */
  worktreeStats?: WorktreeStats;
}

export interface FleetSnapshot {
  agents: AgentView[];
  sessions: SessionView[];
  generatedAt: number;
}

export interface TranscriptPage {
  messages: TranscriptMessage[];
  hasMore: boolean;
  /** The running step's output so far (newest page only). */
  live?: LiveOutput;
  /** Notices the session's turns read within this page, placed after their message. */
  notices: NoticeDelivery[];
}

export interface TimelinePage {
  /** Newest first. */
  events: StateEventRow[];
  hasMore: boolean;
  stateVersion: number;
}

export interface DemoFleet {
  coordinatorKey: string;
  workerKeys: string[];
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
