// Time you can drive: every gateway timer (wake grace, heartbeats, wake coalescing, the shared
// database poll, run timeouts, the catalog monitor cadence) goes through one Scheduler. The real
// one is the default; tests pass a fake one that moves with their fake clock.

/** Cancels what was scheduled; calling it twice is harmless. */
export type Cancel = () => void;

export interface Scheduler {
  /** Runs `fn` once, `ms` from now. */
  after(ms: number, fn: () => void): Cancel;
  /** Runs `fn` every `ms` until cancelled. */
  every(ms: number, fn: () => void): Cancel;
}

/** Node timers, unref'd: a pending gateway timer never keeps a process alive on its own. */
export const realScheduler: Scheduler = {
  after(ms, fn) {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return () => clearTimeout(t);
  },
  every(ms, fn) {
    const t = setInterval(fn, ms);
    t.unref?.();
    return () => clearInterval(t);
  },
};
