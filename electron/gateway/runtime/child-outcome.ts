// The end of a spawned child's run, native or ACP: the outcome is logged on the child
// (`run_completed` / `run_failed`, log only) and the parent's next turn gets one announcement,
// which is what delivers the result to it.
import type { SessionStore } from '../sessions/store';
import type { StateCore } from '../state/session-state';
import type { RunInfo } from '../types';

/** What a spawned run carries: the parent it reports to (if any) and its own limits. */
export interface SpawnInfo {
  parentKey?: string;
  runId: string;
  timeoutMs?: number;
  /** Called once the run's first turn has started (or could not start); may be called again. */
  onStarted?: () => void;
}

const FAILED_SUMMARY = {
  error: 'child run failed',
  timeout: 'child run timed out',
  cancelled: 'child run cancelled',
} as const;

const VERB = { error: 'failed', timeout: 'timed out', cancelled: 'cancelled' } as const;

/** Records the outcome; returns the announcement for the parent (undefined when it is gone). */
export function childRunEnded(
  deps: { state: StateCore; store: SessionStore },
  childKey: string,
  run: RunInfo,
  spawn: SpawnInfo,
  text: string | undefined,
): string | undefined {
  const ok = run.status === 'idle';
  const outcome = run.outcome ?? 'error';
  deps.state.record({
    sessionKey: childKey,
    kind: ok ? 'run_completed' : 'run_failed',
    actorType: 'system',
    runId: run.runId,
    summary: ok ? 'child run completed' : FAILED_SUMMARY[outcome],
    ...(ok ? {} : { payload: { outcome } }),
    ...(spawn.parentKey ? { watchers: [spawn.parentKey] } : {}),
  });
  if (!spawn.parentKey || !deps.store.get(spawn.parentKey)) return undefined;
  const label = deps.store.get(childKey)?.label;
  const verb = ok ? 'completed' : VERB[outcome];
  const detail = ok ? (text ?? '') : (run.error ?? run.outcome ?? '');
  return `[child run ${verb}] ${childKey}${label ? ` (${label})` : ''}: ${detail.replace(/\s+/g, ' ').slice(0, 500)}`;
}
