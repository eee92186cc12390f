// A wake runs the main session's heartbeat turn. With timers (autoStart) it runs at once; without
// them (tests and scripts drive the gateway) it runs after a short grace, so that a caller can
// still look at the queued notice right after the action that queued it.
import { isSubagentKey } from '../../../shared/session-keys';
import type { Scheduler } from '../scheduler';
import type { SessionStore } from '../sessions/store';
import type { HeartbeatWaker } from '../state/waker';
import type { TurnEngine } from './native/turns';

/** Without timers (autoStart false), a wake's heartbeat turn starts this long after the wake. */
export const WAKE_TURN_GRACE_MS = 1000;

/** Starts listening to wakes; returns the stop function (pending grace timers are dropped). */
export function runWakes(deps: {
  waker: HeartbeatWaker;
  store: SessionStore;
  engine: TurnEngine;
  scheduler: Scheduler;
  immediate: boolean;
}): () => void {
  const graceTimers = new Set<() => void>();
  const heartbeat = (key: string) => void deps.engine.enqueue(key, { kind: 'heartbeat' });
  const unsubscribe = deps.waker.onWake((key) => {
    if (!deps.store.get(key) || isSubagentKey(key)) return;
    if (deps.immediate) return heartbeat(key);
    const cancel = deps.scheduler.after(WAKE_TURN_GRACE_MS, () => {
      graceTimers.delete(cancel);
      heartbeat(key);
    });
    graceTimers.add(cancel);
  });
  return () => {
    unsubscribe();
    for (const cancel of graceTimers) cancel();
    graceTimers.clear();
  };
}
