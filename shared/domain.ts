// Domain words of the spec (session-state-awareness.md), shared by the gateway and the renderer.

export const EVENT_KINDS = [
  'human_direct_message',
  'upstream_missing',
  'goal_changed',
  'child_spawned',
  'run_completed',
  'run_failed',
  'compacted',
  'adopted',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** Kinds that notify watchers; the others are log-only (child_spawned seeds cursors). */
export const NOTIFY_KINDS: ReadonlySet<EventKind> = new Set<EventKind>([
  'human_direct_message',
  'upstream_missing',
  'goal_changed',
]);

export const ACTOR_TYPES = ['human', 'agent', 'system'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

export type RunOutcome = 'error' | 'timeout' | 'cancelled';

export interface StateEvent {
  sequence: number;
  kind: EventKind;
  actorType: ActorType;
  occurredAt: number;
  summary: string;
  actorId?: string;
  runId?: string;
  payload?: Record<string, unknown>;
}

/** A full row of the signal log, as the UI timeline shows it. */
export interface StateEventRow extends StateEvent {
  sessionKey: string;
  agentId: string;
}

export interface ChangesSince {
  stateVersion: number;
  events: StateEvent[];
  truncated: boolean;
  earliestAvailableSequence: number;
  historyGap: boolean;
}

export interface CursorPositions {
  lastSeen: number;
  notified: number;
  material: number;
}

export interface NoticeEntry {
  text: string;
  contextKey?: string;
}

export interface SessionInfo {
  key: string;
  agentId: string;
  parentKey?: string;
  label?: string;
  /** Addition: the working folder the session runs in (sessions started from the app, ACP children). */
  cwd?: string;
  /** Addition: hidden from the fleet tree, kept everywhere else (present only when true). */
  archived?: boolean;
  /** Addition (issue 25): an adopted session's upstream source (the tool's transcript file or database). */
  source?: string;
  /** Addition (issue 26): the git worktree the session's agent works in, if it has one. */
  worktree?: WorktreeInfo;
  createdAt: number;
  updatedAt: number;
}

/** A session's own git worktree (contract: `worktrees`). */
export interface WorktreeInfo {
  /** The worktree's folder (the agent's cwd). */
  path: string;
  /** e.g. sightline/fix-login-3f2a9c1d */
  branch: string;
  /** The branch or commit it started from. */
  base: string;
  /** The commit it started from. */
  baseCommit: string;
  /** The main repository's top-level folder. */
  repository: string;
}

export function assertNever(x: never): never {
  throw new Error(`Unexpected value: ${String(x)}`);
}
