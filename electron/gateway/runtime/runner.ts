// The runner seam: every session is run by one runner — native model turns, an ACP agent, the
// upstream CLI of an adopted session, an agent outside Sightline — behind one interface. The
// gateway asks `runners.of(key)` once and talks to what it gets; nothing above this file decides
// by the shape of a session key. (Zed's agent panel talks to its own agent and to external ACP
// agents through one `AgentConnection`: the model for this.)
// A new kind of runner is one folder implementing `SessionRunner` (and `ChildRunner` when it can
// start sessions), handed to `createRunners`; test/runtime/runner-seam.test.ts adds one.
import type { TranscriptStore } from '../sessions/transcripts';
import type { GatewayEvent, Logger, SessionInfo, RunInfo } from '../types';
import type { SpawnInfo } from './child-outcome';
import type { RunLifecycle } from './run-lifecycle';

export interface Sender {
  type: 'agent' | 'human';
  id: string;
}

/** What a runner reports of a session's live turn (persisted runs are the run store's). */
export interface RunnerStatus {
  busy: boolean;
  queued: number;
  run?: RunInfo;
}

/**
 * How a message reaches a session. `write` records it in the transcript, inside the transaction
 * of the caller (with the human turn it may be); `start` then runs the turn that answers it.
 * `channel` is what a human turn records ('acp', 'desktop'); undefined for Sightline's own turns.
 */
export interface Delivery {
  channel: string | undefined;
  write?: () => void;
  start?: () => void;
}

export interface SessionRunner {
  /** 'native', 'acp', 'adopted', 'external', … (a spawn names the runner it wants). */
  readonly name: string;
  /** Whether it runs this session when no start has said so (after a restart, say). */
  accepts(key: string): boolean;
  /** Prepares a message into the session; throws, writing nothing, when it cannot take one. */
  deliver(key: string, text: string, from: Sender, signal?: AbortSignal): Promise<Delivery>;
  /** Sightline's own line (a child's outcome) as the session's next turn; false when it cannot. */
  system(key: string, text: string): boolean;
  /** Ends the running turn as cancelled; false when nothing runs. */
  cancel(key: string): boolean;
  /** The session was reset: what the runner holds of its conversation goes. */
  reset(key: string): void;
  /** The session is gone (deleted, or run by another gateway now): nothing more is written. */
  forget(key: string): void;
  status(key: string): RunnerStatus;
  /** Runs the failed turn again; false when nothing failed or it cannot. */
  retry(session: SessionInfo): boolean;
  /** Whether `retry` can run this session's failed turn. */
  retryable(key: string): boolean;
  /** The gateway closes: no process of this runner outlives it. */
  close(): void | Promise<void>;
}

/** A child about to be started by a runner that can start sessions. */
export interface ChildStart {
  key: string;
  task: string;
  spawn: SpawnInfo;
  cwd?: string;
  /** The runner's own choice made when planning (an ACP profile). */
  config?: unknown;
  /** A paired node's id: the agent runs there, in `cwd` on that machine (issue 30.1). */
  node?: string;
}

/** A runner that starts sessions (spawn and `sessions.start`). */
export interface ChildRunner extends SessionRunner {
  /**
   * What the child needs, decided before anything is written (throws when it cannot be started:
   * an unknown profile, one an agent may not use): its config and its default folder.
   */
  plan(
    key: string,
    req: { profile?: string; cwd?: string; by: 'agent' | 'human'; node?: string },
  ): {
    config?: unknown;
    cwd?: string;
    /** Shown as the label's head when none is given. */
    labelHead?: string;
    profileId?: string;
  };
  /** Starts a child whose session was just committed, with its first turn. */
  begin(child: ChildStart): void;
  /**
   * A person's start: the agent is started before its session is committed, so one that cannot
   * start leaves nothing behind. Runners whose start cannot fail leave this out.
   */
  launch?(child: Omit<ChildStart, 'task' | 'spawn'>): Promise<{
    begin(task: string, spawn: SpawnInfo): void;
    abandon(): void;
  }>;
}

/** What the gateway gives a runner it is handed (createGateway's `runners`). */
export interface RunnerContext {
  now: () => number;
  logger: Logger;
  emit: (e: GatewayEvent) => void;
  transcripts: TranscriptStore;
  lifecycle: RunLifecycle;
}

export type RunnerFactory = (ctx: RunnerContext) => SessionRunner;

export type Runners = ReturnType<typeof createRunners>;

/**
 * The router: a session's runner is the one that started it in this gateway, else the first one
 * that accepts it. Every question about a session's turns goes through `of(key)`.
 */
export function createRunners(list: SessionRunner[]) {
  const started = new Map<string, SessionRunner>();
  const byName = new Map(list.map((r) => [r.name, r]));
  const of = (key: string): SessionRunner | undefined => started.get(key) ?? list.find((r) => r.accepts(key));
  return {
    of,
    /** The runner of this name that starts sessions (a spawn's `runtime`). */
    child(name: string): ChildRunner | undefined {
      const r = byName.get(name);
      return r && 'begin' in r ? (r as ChildRunner) : undefined;
    },
    /** Records who runs a session it started. */
    started(key: string, runner: SessionRunner): void {
      started.set(key, runner);
    },
    status: (key: string): RunnerStatus => of(key)?.status(key) ?? { busy: false, queued: 0 },
    cancel: (key: string): boolean => of(key)?.cancel(key) ?? false,
    system: (key: string, text: string): boolean => of(key)?.system(key, text) ?? false,
    reset: (key: string): void => of(key)?.reset(key),
    /** Every runner forgets it (a session may have moved between them). */
    forget(key: string): void {
      for (const r of list) r.forget(key);
      started.delete(key);
    },
    close: (): Promise<unknown> => Promise.all(list.map((r) => r.close())),
  };
}
