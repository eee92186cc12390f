// A fake clock that is also the gateway's scheduler: pass `now: clock.now, scheduler: clock`.
// `advance` only moves time (retention, expiry, coalescing windows); `tick` moves time and runs
// every timer that falls due on the way, each at its own time, in order.
import type { Cancel, Scheduler } from '../../electron/gateway/scheduler';

export const DEFAULT_T0 = Date.UTC(2026, 11, 2, 12, 0, 0);

interface Timer {
  id: number;
  due: number;
  every?: number;
  fn: () => void;
}

export class FakeClock implements Scheduler {
  private timers: Timer[] = [];
  private nextId = 1;

  constructor(public t: number = DEFAULT_T0) {}

  now = (): number => this.t;

  advance(ms: number): number {
    this.t += ms;
    return this.t;
  }

  /** Moves time forward by `ms`, running due timers (also ones they schedule) on the way. */
  tick(ms = 0): number {
    const end = this.t + ms;
    for (;;) {
      const next = this.timers.filter((x) => x.due <= end).sort((a, b) => a.due - b.due || a.id - b.id)[0];
      if (!next) break;
      this.t = Math.max(this.t, next.due);
      if (next.every !== undefined) next.due += next.every;
      else this.timers = this.timers.filter((x) => x !== next);
      next.fn();
    }
    this.t = Math.max(this.t, end);
    return this.t;
  }

  /** Timers waiting to run. */
  pending(): number {
    return this.timers.length;
  }

  after(ms: number, fn: () => void): Cancel {
    return this.add({ id: this.nextId++, due: this.t + Math.max(0, ms), fn });
  }

  every(ms: number, fn: () => void): Cancel {
    const step = Math.max(1, ms);
    return this.add({ id: this.nextId++, due: this.t + step, every: step, fn });
  }

  private add(timer: Timer): Cancel {
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((x) => x !== timer);
    };
  }
}
