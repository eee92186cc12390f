// Live output of running sessions (issue 17.1): each session's current step as it streams
// (assistant text, thinking) and its last activity line for the fleet. Fed by `run:delta`
// pushes; a step's output leaves when its message lands in the transcript, a run's when it ends.
// Kept for every session (not only the open one), so opening a running session shows its step.
import { create } from 'zustand';
import { appendLive, messageActivity } from '../../../shared/activity';
import type { GatewayEvent, LiveOutput } from '../../../shared/ipc';

interface LiveState {
  /** Running steps by session key. */
  steps: Record<string, LiveOutput>;
  /** Last activity line by session key (overrides the snapshot's `activity`). */
  lines: Record<string, string>;
  /** A page opened mid-run: the step so far, from the gateway. */
  seed(sessionKey: string, live: LiveOutput | undefined): void;
  applyEvents(events: GatewayEvent[]): void;
  reset(): void;
}

const initial = { steps: {} as Record<string, LiveOutput>, lines: {} as Record<string, string> };

export const useLive = create<LiveState>()((set, get) => ({
  ...initial,
  seed(sessionKey, live) {
    if (!live || get().steps[sessionKey]) return;
    set((s) => ({ steps: { ...s.steps, [sessionKey]: live } }));
  },
  applyEvents(events) {
    // One copy per batch, not per event: a push carries many sessions' deltas.
    const before = get();
    let steps = before.steps;
    let lines = before.lines;
    const writeSteps = () => (steps === before.steps ? (steps = { ...steps }) : steps);
    const writeLines = () => (lines === before.lines ? (lines = { ...lines }) : lines);
    for (const e of events) {
      switch (e.type) {
        case 'run:delta': {
          const { step, line } = appendLive(steps[e.sessionKey], e.runId, e.stream, e.text);
          writeSteps()[e.sessionKey] = step;
          if (line) writeLines()[e.sessionKey] = line;
          break;
        }
        case 'transcript:appended': {
          const key = e.message.sessionKey;
          if (e.message.role === 'assistant' && steps[key]) delete writeSteps()[key];
          const line = messageActivity(e.message);
          if (line) writeLines()[key] = line;
          break;
        }
        case 'run:changed':
          if (e.run.status !== 'running' && e.run.status !== 'queued' && steps[e.run.sessionKey])
            delete writeSteps()[e.run.sessionKey];
          break;
        case 'session:deleted':
          if (steps[e.sessionKey]) delete writeSteps()[e.sessionKey];
          if (lines[e.sessionKey]) delete writeLines()[e.sessionKey];
          break;
        default:
          break;
      }
    }
    if (steps !== before.steps || lines !== before.lines) set({ steps, lines });
  },
  reset: () => set(initial),
}));
