// One run lifecycle for every runner: a run is queued, runs, and ends (idle, failed or
// cancelled); each step is saved and pushed (`run:changed`); a spawned child's end is recorded on
// its signal log and announced to its parent. The turn's start drains the session's notices the
// same way for every runner, so the acknowledge and reopen rules are the state core's, once.
import { randomUUID } from 'node:crypto';
import type { ContextUse, Cost, GatewayEvent, NoticeQueue, RunInfo, RunStatus } from '../types';
import type { SpawnInfo } from './child-outcome';
import type { RunStore } from './runs';

/** What a run's agent reported about it; each part only when it did (issue 28.6). */
export interface RunUsage {
  tokens?: { input: number; output: number };
  cost?: Cost;
  context?: ContextUse;
}

/** How a run ended: `idle` (completed), or failed / cancelled with an outcome and reason. */
export type RunEnd = (
  | { status: 'idle' }
  | {
      status: Extract<RunStatus, 'failed' | 'cancelled'>;
      outcome: NonNullable<RunInfo['outcome']>;
      error?: string;
    }
) & { usage?: RunUsage };

/** A write of the runner's (native turns fence theirs with the session's ownership epoch). */
export type Write = <T>(fn: () => T) => T;
const direct: Write = (fn) => fn();

export interface RunLifecycleDeps {
  now: () => number;
  runs: RunStore;
  emit: (e: GatewayEvent) => void;
  notices: Pick<NoticeQueue, 'drain'>;
  /** A spawned child's run ended: its outcome goes on its log and to its parent. */
  announce: (childKey: string, run: RunInfo, spawn: SpawnInfo, text: string | undefined) => void;
}

export type RunLifecycle = ReturnType<typeof createRunLifecycle>;

export function createRunLifecycle(deps: RunLifecycleDeps) {
  const push = (run: RunInfo) => deps.emit({ type: 'run:changed', run: { ...run } });
  return {
    /** A run for this turn: the spawn's (made with the session), else a new one in `status`. */
    open(key: string, spawn: SpawnInfo | undefined, status: 'queued' | 'running', write = direct): RunInfo {
      const made = spawn && deps.runs.get(spawn.runId);
      if (made) return made;
      const run = write(() => deps.runs.start(spawn?.runId ?? randomUUID(), key, status, deps.now()));
      if (status === 'queued') push(run);
      return run;
    },
    /**
     * The turn starts now. `startedAt` stays when the run was made (queued or not), as stored:
     * the status's "running since" does not jump when a queued run begins.
     */
    begin(run: RunInfo, write = direct): void {
      run.status = 'running';
      write(() => deps.runs.save(run));
      push(run);
    },
    /**
     * What the turn starts with: the session's notices (drained now, which acknowledges the
     * watcher's cursors) and Sightline's own lines, in that order.
     */
    notes(key: string, system: string[] = []): string[] {
      return [...deps.notices.drain(key).map((e) => e.text), ...system];
    },
    /** The turn ended; a spawned child's parent hears of it. */
    end(run: RunInfo, how: RunEnd, spawn?: SpawnInfo, text?: string, write = direct): void {
      run.status = how.status;
      if (how.status !== 'idle') {
        run.outcome = how.outcome;
        if (how.error !== undefined) run.error = how.error;
      }
      run.endedAt = deps.now();
      const { tokens, cost, context } = how.usage ?? {};
      if (tokens) {
        run.inputTokens += tokens.input;
        run.outputTokens += tokens.output;
      }
      if (cost) run.cost = cost;
      if (context) run.context = context;
      write(() => deps.runs.save(run));
      push(run);
      if (spawn) deps.announce(run.sessionKey, run, spawn, text);
    },
  };
}
