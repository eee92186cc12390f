// Timed heartbeats (autoStart only): every agent with heartbeatSeconds > 0 asks for a wake of its
// main session at that interval; the waker coalesces it with notice wakes.
import { mainKeyFor } from '../../../shared/session-keys';
import type { Scheduler } from '../scheduler';
import type { HeartbeatWaker } from '../state/waker';
import type { AgentStore } from './agents';

export function createHeartbeats(deps: { agents: AgentStore; waker: HeartbeatWaker; scheduler: Scheduler }) {
  const timers: (() => void)[] = [];
  let running = false;
  const stopTimers = () => {
    for (const cancel of timers.splice(0)) cancel();
  };
  return {
    /** (Re)starts one timer per agent from the current settings. */
    start(): void {
      running = true;
      stopTimers();
      for (const agent of deps.agents.list()) {
        if (agent.heartbeatSeconds <= 0) continue;
        const key = agent.mainKey || mainKeyFor(agent.id);
        timers.push(
          deps.scheduler.every(agent.heartbeatSeconds * 1000, () => deps.waker.request(key, 'heartbeat')),
        );
      }
    },
    /** After an agent's settings changed: picks up the new interval when timers run. */
    refresh(): void {
      if (running) this.start();
    },
    stop(): void {
      running = false;
      stopTimers();
    },
  };
}
