// The status model (issue 17.2): one status per session, derived here and pushed as
// `session:status` when it changes, so the fleet, the inbox, the window title and notifications
// all agree. Derived from the facts, never stored: pending permission requests (waiting), the
// live turn and the latest run (running, failed), and when the person last opened the session
// (done — unseen, kept by person/seen.ts). A restart fails the runs it cut short
// (runs.failInterrupted), so nothing stays `running`.
import type { SeenStore } from '../person/seen';
import type { PermissionRequestView, RunInfo, SessionStatusView } from '../../../shared/ipc/types';
import type { GatewayEvent } from '../types';

export interface StatusDeps {
  seen: SeenStore;
  now: () => number;
  emit: (e: GatewayEvent) => void;
  /** The live turn of a native session (input queued) and its run. */
  live(sessionKey: string): { busy: boolean; queued: number; run?: RunInfo };
  latestRun(sessionKey: string): RunInfo | undefined;
  /** Questions waiting for the person (ACP permissions, consent requests). */
  pendingRequests(): PermissionRequestView[];
  /** Whether the session's runner can run a failed turn again (the runner seam's answer). */
  retryable(sessionKey: string): boolean;
}

export type StatusTracker = ReturnType<typeof createStatusTracker>;

const same = (a: SessionStatusView | undefined, b: SessionStatusView) =>
  !!a &&
  a.status === b.status &&
  a.reason === b.reason &&
  a.runId === b.runId &&
  a.since === b.since &&
  a.retryable === b.retryable;

export function createStatusTracker(deps: StatusDeps) {
  const cache = new Map<string, SessionStatusView>();
  // Read once: a snapshot of 10,000 sessions must not query per session (the fleet's first paint).
  const seenAt = deps.seen.all();

  /** `known`: the session's live-or-latest run when the caller has it (null: it never ran). */
  const derive = (key: string, known?: RunInfo | null): SessionStatusView => {
    const waits = deps.pendingRequests().filter((r) => r.sessionKey === key);
    const live = deps.live(key);
    const run = live.run ?? (known === undefined ? deps.latestRun(key) : (known ?? undefined));
    const runId = run ? { runId: run.runId } : {};
    if (waits.length > 0) {
      const first = waits[0]!;
      const more = waits.length > 1 ? ` (and ${waits.length - 1} more)` : '';
      return { status: 'waiting', reason: `${first.title}${more}`, since: first.createdAt, ...runId };
    }
    // The run decides, not the loop: a turn's loop is still busy for a moment after its run ended.
    if (live.queued > 0 || run?.status === 'running' || run?.status === 'queued') {
      return { status: 'running', since: run?.startedAt ?? deps.now(), ...runId };
    }
    if (run?.status === 'failed') {
      return {
        status: 'failed',
        reason: run.error ?? (run.outcome === 'timeout' ? 'the run timed out' : 'the run failed'),
        since: run.endedAt ?? run.startedAt,
        retryable: deps.retryable(key),
        ...runId,
      };
    }
    if (run?.status === 'idle' && run.endedAt !== undefined && run.endedAt > (seenAt.get(key) ?? 0)) {
      return { status: 'done_unseen', since: run.endedAt, ...runId };
    }
    return { status: 'idle', since: run?.endedAt ?? 0 };
  };

  const refresh = (key: string): void => {
    const next = derive(key);
    const prev = cache.get(key);
    cache.set(key, next);
    if (!same(prev, next)) deps.emit({ type: 'session:status', sessionKey: key, status: next });
  };

  return {
    get(key: string, known?: RunInfo | null): SessionStatusView {
      let v = cache.get(key);
      if (!v) cache.set(key, (v = derive(key, known)));
      return v;
    },
    refresh,
    /** The person opened the session: a finished run is no longer unseen. */
    seen(key: string): void {
      const at = deps.now();
      deps.seen.put(key, at);
      seenAt.set(key, Math.max(at, seenAt.get(key) ?? 0));
      refresh(key);
    },
    /** Keeps statuses in step with the events that change them. */
    onEvent(e: GatewayEvent): void {
      switch (e.type) {
        case 'run:changed':
          return refresh(e.run.sessionKey);
        case 'acp:permission':
          return refresh(e.request.sessionKey);
        case 'acp:permission-resolved':
        case 'session:changed':
          return refresh(e.sessionKey);
        case 'session:deleted':
          cache.delete(e.sessionKey);
          seenAt.delete(e.sessionKey);
          deps.seen.remove(e.sessionKey);
          return;
        default:
          return;
      }
    },
  };
}
