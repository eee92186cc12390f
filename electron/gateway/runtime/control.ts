// Run control: what a session's run is doing, its history and token totals, cancelling it, and a
// heartbeat turn by hand. `gateway.runtime` (an addition to the contract).
import { normalizeSessionKey } from '../../../shared/session-keys';
import type { SessionStore } from '../sessions/store';
import type { ContextUse, Cost, RunInfo, RunStatus } from '../types';
import type { Goals } from './goals';
import type { Runners } from './runner';
import type { RunStore } from './runs';
import type { TurnEngine } from './native/turns';

export interface RunControlDeps {
  /** The native engine: heartbeats and `idle()` are its own. */
  engine: Pick<TurnEngine, 'enqueue' | 'idle'>;
  runners: Pick<Runners, 'of' | 'status' | 'cancel'>;
  store: Pick<SessionStore, 'get'>;
  runs: RunStore;
  goals: Pick<Goals, 'get'>;
}

export type RunControl = ReturnType<typeof createRunControl>;

/** One session's run facts, as the fleet shows them. */
export interface RunOverview {
  run: RunInfo | undefined;
  status: RunStatus;
  tokens: { input: number; output: number };
  /** Reported costs per currency (absent: none reported). */
  costs?: Cost[];
  /** The latest context window reported (the single-session view reads it; the fleet does not). */
  context?: ContextUse;
}

export function createRunControl(deps: RunControlDeps) {
  const { engine, runs, runners } = deps;

  // A live turn decides, else the latest recorded run (read only when needed).
  const statusOf = (key: string, latest: () => RunInfo | undefined): RunStatus => {
    const live = runners.status(key);
    if (live.busy) return live.run?.status ?? 'running';
    if (live.queued > 0) return 'queued';
    return latest()?.status ?? 'idle';
  };

  /** Queued while a turn waits; `idle` also when the session never ran. */
  const sessionStatus = (sessionKey: string): RunStatus => {
    const key = normalizeSessionKey(sessionKey);
    return statusOf(key, () => runs.latest(key));
  };

  return {
    /** The live run, else the latest recorded one. */
    status(sessionKey: string): RunInfo | undefined {
      const key = normalizeSessionKey(sessionKey);
      return runners.status(key).run ?? runs.latest(key);
    },
    runs: (sessionKey: string, limit?: number) => runs.list(normalizeSessionKey(sessionKey), limit),
    sessionStatus,
    cancel: (sessionKey: string): boolean => runners.cancel(normalizeSessionKey(sessionKey)),
    idle: () => engine.idle(),
    /** Whether the session's runner can run its failed turn again. */
    retryable(sessionKey: string): boolean {
      const key = normalizeSessionKey(sessionKey);
      return runners.of(key)?.retryable(key) ?? false;
    },
    /**
     * Runs a failed session's turn again, on the transcript as it is. A spawned child reports the
     * new run to its parent as the first one would have. False when nothing failed or it cannot.
     */
    retry(sessionKey: string): boolean {
      const key = normalizeSessionKey(sessionKey);
      const session = deps.store.get(key);
      const runner = runners.of(key);
      if (!session || !runner?.retryable(key) || sessionStatus(key) !== 'failed') return false;
      return runner.retry(session);
    },
    /** One heartbeat turn now (what a wake or the timer does); resolves when it is done. */
    heartbeat: (sessionKey: string) => engine.enqueue(normalizeSessionKey(sessionKey), { kind: 'heartbeat' }),
    tokens: (sessionKey: string) => runs.totals(normalizeSessionKey(sessionKey)),
    /** Costs per currency and the latest context window, as the session's agents reported them. */
    usage: (sessionKey: string) => runs.usage(normalizeSessionKey(sessionKey)),
    /** status, sessionStatus and tokens of many sessions with one query (the fleet snapshot). */
    overview(sessionKeys: string[]): Map<string, RunOverview> {
      const persisted = runs.summaries();
      const costs = runs.allCosts();
      const out = new Map<string, RunOverview>();
      for (const key of sessionKeys) {
        const p = persisted.get(key);
        const c = costs.get(key);
        out.set(key, {
          run: runners.status(key).run ?? p?.latest,
          status: statusOf(key, () => p?.latest),
          tokens: p ? { input: p.input, output: p.output } : { input: 0, output: 0 },
          ...(c ? { costs: c } : {}),
        });
      }
      return out;
    },
    /** Run status and goal: what the session tools add to a session's description. */
    describe(key: string): Record<string, unknown> {
      const goal = deps.goals.get(key);
      return {
        runStatus: sessionStatus(key),
        ...(goal ? { goal: { objective: goal.objective, status: goal.status } } : {}),
      };
    },
  };
}
