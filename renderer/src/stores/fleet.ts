// The fleet: agents and every session as a SessionView, kept live from pushed gateway events.
import { create } from 'zustand';
import type { AgentView, DemoFleet, FleetWire, GatewayEvent, SessionView } from '../../../shared/ipc';
import { sessionFromWire } from '../../../shared/ipc/fleet-wire';
import { call } from '../lib/api';

interface FleetState {
  loaded: boolean;
  agents: AgentView[];
  sessions: Record<string, SessionView>;
  /** Bumped when the tree's shape can change (sessions added or removed, parent, kind, label,
   * creation time); badge updates (versions, run status, notices) leave it alone. */
  shape: number;
  filter: string;
  /** Archived sessions are hidden from the fleet tree unless this is on. */
  showArchived: boolean;
  demoStarting: boolean;
  load(): Promise<void>;
  /** The app's first load (start.tsx waits for it before the first render; useStartup reports
   * its failure): one request, whoever asks first. */
  firstLoad(): Promise<void>;
  refreshSession(key: string): Promise<void>;
  setFilter(filter: string): void;
  setShowArchived(show: boolean): void;
  startDemo(): Promise<DemoFleet>;
  applyEvents(events: GatewayEvent[]): void;
  reset(): void;
}

let early: Promise<FleetWire> | undefined;

/**
 * The sessions as a list, made once per sessions map (the map is replaced, never changed): the
 * shape selectors below and the fleet tree share it instead of each listing 10,000 sessions.
 */
const lists = new WeakMap<Record<string, SessionView>, SessionView[]>();
export function sessionList(sessions: Record<string, SessionView>): SessionView[] {
  let list = lists.get(sessions);
  if (!list) lists.set(sessions, (list = Object.values(sessions)));
  return list;
}

/**
 * A selector over the fleet's shape (which sessions exist, their agent, kind, parent, label,
 * archived flag: see `shape`), computed once per shape. zustand runs every subscribed selector on
 * every store change, and pushed badge updates change the sessions map up to 60 times a second:
 * with 10,000 sessions a pass over all of them each time took a third of the page's main thread.
 */
function overShape<T>(fn: (all: SessionView[]) => T): (s: FleetState) => T {
  let seen = -1;
  let value: T;
  return (s) => {
    if (s.shape !== seen) {
      seen = s.shape;
      value = fn(sessionList(s.sessions));
    }
    return value;
  };
}

/** How many sessions are archived (the fleet's "show archived" toggle). */
export const selectArchivedCount = overShape((all) => all.filter((v) => v.archived).length);
/** How many sessions there are (archived too): the fleet's density follows it. */
export const selectSessionCount = overShape((all) => all.length);
/** Whether the demo fleet's sessions exist. */
export const selectDemoRunning = overShape((all) => all.some((v) => v.agentId === 'demo'));

const selectOnlyMains = overShape((all) => all.every((v) => v.kind === 'main'));

/**
 * Nothing but main sessions that never ran (agent `main` always has one): the empty state. Run
 * status is not part of the shape, so it is read, but only in a fleet of main sessions alone.
 */
export function selectFleetEmpty(s: FleetState): boolean {
  if (!selectOnlyMains(s)) return false;
  return sessionList(s.sessions).every((v) => v.runStatus === 'none');
}

/**
 * Asks for the fleet before the first render (boot.ts), so that connecting, the gateway's work
 * and the transfer overlap with loading the app; the first load() takes this answer.
 */
export function prefetchFleet(): void {
  early ??= call('fleet:compact', {});
  early.catch(() => {}); // load() reports a failure
}

const initial = {
  loaded: false,
  agents: [] as AgentView[],
  sessions: {} as Record<string, SessionView>,
  shape: 0,
  filter: '',
  showArchived: false,
  demoStarting: false,
};

/**
 * Pushed events reach the sessions map at most every COMMIT_MS: each commit copies the map (it is
 * replaced, never mutated), and at 10,000 sessions a copy per 16 ms push took a fifth of the
 * page's main thread. A lone event still applies at once; a burst waits at most this long.
 */
const COMMIT_MS = 100;

/**
 * Pushed events applied to the sessions map: a new map only when something changed (one copy per
 * commit, not per event: 10,000 sessions × 200 events/s), whether a session went, and the sessions
 * to read again from the gateway.
 */
function applyToSessions(
  before: Record<string, SessionView>,
  events: GatewayEvent[],
): { sessions: Record<string, SessionView>; deleted: boolean; refresh: Set<string> } {
  const refresh = new Set<string>();
  let sessions = before;
  const writable = () => (sessions === before ? (sessions = { ...before }) : sessions);
  let deleted = false;
  const patch = (key: string, fn: (v: SessionView) => SessionView) => {
    const v = sessions[key];
    if (v) writable()[key] = fn(v);
  };
  for (const e of events) {
    switch (e.type) {
      case 'state:event':
        patch(e.sessionKey, (v) => ({ ...v, stateVersion: Math.max(v.stateVersion, e.event.sequence) }));
        if (
          e.event.kind === 'upstream_missing' ||
          e.event.kind === 'adopted' ||
          e.event.kind === 'goal_changed'
        ) {
          refresh.add(e.sessionKey);
        }
        break;
      case 'run:changed':
        // The status shows at once; tokens are the session's total over all runs, re-read.
        patch(e.run.sessionKey, (v) => ({ ...v, runStatus: e.run.status }));
        refresh.add(e.run.sessionKey);
        break;
      case 'session:status':
        patch(e.sessionKey, (v) => ({ ...v, status: e.status }));
        break;
      case 'notice:queued':
      case 'notice:drained':
      case 'session:changed':
        refresh.add(e.sessionKey);
        break;
      case 'session:deleted':
        if (sessions[e.sessionKey]) {
          delete writable()[e.sessionKey];
          deleted = true;
        }
        break;
      default:
        break;
    }
  }
  return { sessions, deleted, refresh };
}

export const useFleet = create<FleetState>()((set, get) => {
  let queued: GatewayEvent[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastCommit = -Infinity;

  const commit = () => {
    timer = undefined;
    lastCommit = Date.now();
    const events = queued;
    queued = [];
    apply(events);
  };

  const apply = (events: GatewayEvent[]) => {
    const { sessions, deleted, refresh } = applyToSessions(get().sessions, events);
    if (sessions !== get().sessions) set((s) => ({ sessions, shape: deleted ? s.shape + 1 : s.shape }));
    for (const key of refresh) void get().refreshSession(key);
  };

  let first: Promise<void> | undefined;

  return {
    ...initial,
    firstLoad() {
      first ??= get().load();
      return first;
    },
    async load() {
      const pending = early;
      early = undefined;
      const snap = await (pending ?? call('fleet:compact', {}));
      const sessions: Record<string, SessionView> = {};
      for (const w of snap.sessions) sessions[w.key] = sessionFromWire(w);
      set((s) => ({ loaded: true, agents: snap.agents, sessions, shape: s.shape + 1 }));
    },
    async refreshSession(key) {
      try {
        const view = await call('sessions:get', { sessionKey: key });
        set((s) => ({
          sessions: { ...s.sessions, [view.key]: view },
          shape: sameShape(s.sessions[view.key], view) ? s.shape : s.shape + 1,
        }));
      } catch {
        set((s) => {
          const { [key]: _gone, ...rest } = s.sessions;
          return { sessions: rest, shape: s.shape + 1 };
        });
      }
    },
    setFilter: (filter) => set({ filter }),
    setShowArchived: (showArchived) => set({ showArchived }),
    async startDemo() {
      set({ demoStarting: true });
      try {
        const demo = await call('demo:start', {});
        await get().load();
        return demo;
      } finally {
        set({ demoStarting: false });
      }
    },
    applyEvents(events) {
      for (const e of events) queued.push(e);
      if (timer) return;
      const wait = COMMIT_MS - (Date.now() - lastCommit);
      if (wait <= 0) commit();
      else timer = setTimeout(commit, wait);
    },
    reset() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      queued = [];
      // `shape` only ever grows: the shape selectors above remember the last shape they saw.
      set((s) => ({ ...initial, shape: s.shape + 1 }));
    },
  };
});

function sameShape(a: SessionView | undefined, b: SessionView): boolean {
  return (
    !!a &&
    a.agentId === b.agentId &&
    a.parentKey === b.parentKey &&
    a.kind === b.kind &&
    a.label === b.label &&
    a.archived === b.archived &&
    a.createdAt === b.createdAt
  );
}
