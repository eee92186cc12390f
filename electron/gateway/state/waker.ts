// Heartbeat wake requests for main-session watchers. Wakes for the same watcher coalesce within
// 20 s; a request inside the window is not lost: it becomes one trailing wake when the window ends
// (only while timers run, i.e. autoStart).
import type { Cancel, Scheduler } from '../scheduler';

export const WAKE_COALESCE_MS = 20_000;

export type WakeReason = 'notice' | 'heartbeat';

export class HeartbeatWaker {
  private readonly lastWake = new Map<string, number>();
  private readonly trailing = new Map<string, Cancel>();
  private readonly listeners = new Set<(sessionKey: string, reason: WakeReason) => void>();
  private timersEnabled = false;

  constructor(
    private readonly now: () => number,
    private readonly isMainSession: (key: string) => boolean,
    private readonly scheduler: Scheduler,
  ) {}

  onWake(listener: (sessionKey: string, reason: WakeReason) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  enableTimers(on: boolean): void {
    this.timersEnabled = on;
    if (!on) {
      for (const cancel of this.trailing.values()) cancel();
      this.trailing.clear();
    }
  }

  /** True when a wake was issued now; false when not a main session or coalesced. */
  request(sessionKey: string, reason: WakeReason = 'notice'): boolean {
    if (!this.isMainSession(sessionKey)) return false;
    const t = this.now();
    const last = this.lastWake.get(sessionKey);
    if (last !== undefined && t - last < WAKE_COALESCE_MS && t >= last) {
      this.scheduleTrailing(sessionKey, last + WAKE_COALESCE_MS - t, reason);
      return false;
    }
    this.fire(sessionKey, reason, t);
    return true;
  }

  /** Wakes issued per session so far (for the UI and tests). */
  lastWakeAt(sessionKey: string): number | undefined {
    return this.lastWake.get(sessionKey);
  }

  forget(sessionKey: string): void {
    this.lastWake.delete(sessionKey);
    this.trailing.get(sessionKey)?.();
    this.trailing.delete(sessionKey);
  }

  private fire(sessionKey: string, reason: WakeReason, t: number): void {
    this.lastWake.set(sessionKey, t);
    for (const l of this.listeners) l(sessionKey, reason);
  }

  private scheduleTrailing(sessionKey: string, delayMs: number, reason: WakeReason): void {
    if (!this.timersEnabled || this.trailing.has(sessionKey)) return;
    const cancel = this.scheduler.after(delayMs, () => {
      this.trailing.delete(sessionKey);
      this.fire(sessionKey, reason, this.now());
    });
    this.trailing.set(sessionKey, cancel);
  }
}
