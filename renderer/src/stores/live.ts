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

/**
 * Activity lines reach the store (and the fleet rows) at most every LINES_MS, the cadence of the
 * fleet's own badges (fleet.ts, COMMIT_MS); a lone change still applies at once. With 200 sessions
 * streaming five lines a second each, some row on screen had a new line in every frame, so the
 * page restyled, laid out and painted 60 times a second and the open session's own lines waited
 * behind that (acp-live bench, docs/perf.md). The running steps, which the open transcript
 * shows, still apply in every frame.
 */
const LINES_MS = 100;

export const useLive = create<LiveState>()((set, get) => {
  /** Lines not in the store yet, by session key; undefined: the session's line goes. */
  let pending: Map<string, string | undefined> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastCommit = 0;

  const commitLines = () => {
    timer = undefined;
    lastCommit = Date.now();
    const changes = pending;
    pending = undefined;
    if (!changes) return;
    const lines = { ...get().lines };
    for (const [key, line] of changes) {
      if (line === undefined) delete lines[key];
      else lines[key] = line;
    }
    set({ lines });
  };

  const queueLine = (key: string, line: string | undefined) => (pending ??= new Map()).set(key, line);

  return {
    ...initial,
    seed(sessionKey, live) {
      if (!live || get().steps[sessionKey]) return;
      set((s) => ({ steps: { ...s.steps, [sessionKey]: live } }));
    },
    applyEvents(events) {
      // One copy per batch, not per event: a push carries many sessions' deltas.
      const before = get().steps;
      let steps = before;
      const writeSteps = () => (steps === before ? (steps = { ...steps }) : steps);
      for (const e of events) {
        switch (e.type) {
          case 'run:delta': {
            const { step, line } = appendLive(steps[e.sessionKey], e.runId, e.stream, e.text);
            writeSteps()[e.sessionKey] = step;
            if (line) queueLine(e.sessionKey, line);
            break;
          }
          case 'transcript:appended': {
            const key = e.message.sessionKey;
            if (e.message.role === 'assistant' && steps[key]) delete writeSteps()[key];
            const line = messageActivity(e.message);
            if (line) queueLine(key, line);
            break;
          }
          case 'run:changed':
            if (e.run.status !== 'running' && e.run.status !== 'queued' && steps[e.run.sessionKey])
              delete writeSteps()[e.run.sessionKey];
            break;
          case 'session:deleted':
            if (steps[e.sessionKey]) delete writeSteps()[e.sessionKey];
            if (get().lines[e.sessionKey] !== undefined || pending?.has(e.sessionKey))
              queueLine(e.sessionKey, undefined);
            break;
          default:
            break;
        }
      }
      if (steps !== before) set({ steps });
      if (!pending || timer) return;
      const wait = LINES_MS - (Date.now() - lastCommit);
      if (wait <= 0) commitLines();
      else timer = setTimeout(commitLines, wait);
    },
    reset() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      pending = undefined;
      lastCommit = 0;
      set(initial);
    },
  };
});
