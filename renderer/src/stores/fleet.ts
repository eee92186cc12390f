// The fleet: agents and every session as a SessionView, kept live from pushed gateway events.
import { create } from 'zustand';
import type { AgentView, DemoFleet, FleetSnapshot, GatewayEvent, SessionView } from '../../../shared/ipc';
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
  refreshSession(key: string): Promise<void>;
  setFilter(filter: string): void;
  setShowArchived(show: boolean): void;
  startDemo(): Promise<DemoFleet>;
  applyEvents(events: GatewayEvent[]): void;
  reset(): void;
}

let early: Promise<FleetSnapshot> | undefined;

/**
 * A selector over every session, computed once per sessions map. zustand runs each subscribed
 * selector on every store change, and with 10,000 sessions a pass over all of them costs a few
 * milliseconds; the map is replaced, never mutated, so its identity says when to compute again.
 */
function overSessions<T>(fn: (all: SessionView[]) => T): (s: FleetState) => T {
  let seen: Record<string, SessionView> | undefined;
  let value: T;
  return (s) => {
    if (s.sessions !== seen) {
      seen = s.sessions;
      value = fn(Object.values(s.sessions));
    }
    return value;
  };
}

/** How many sessions are archived (the fleet's "show archived" toggle). */
export const selectArchivedCount = overSessions((all) => all.filter((v) => v.archived).length);
/** Nothing but main sessions that never ran (agent `main` always has one): the empty state. */
export const selectFleetEmpty = overSessions((all) =>
  all.every((v) => v.kind === 'main' && v.runStatus === 'none'),
);
/** Whether the demo fleet's sessions exist. */
export const selectDemoRunning = overSessions((all) => all.some((v) => v.agentId === 'demo'));

/**
 * Asks for the fleet before the first render (boot.ts), so that connecting, the gateway's work
 * and the transfer overlap with loading the app; the first load() takes this answer.
 */
export function prefetchFleet(): void {
  early ??= call('fleet:snapshot', {});
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

export const useFleet = create<FleetState>()((set, get) => ({
  ...initial,
  async load() {
    const pending = early;
    early = undefined;
    const snap = await (pending ?? call('fleet:snapshot', {}));
    const sessions: Record<string, SessionView> = {};
    for (const s of snap.sessions) sessions[s.key] = s;
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
    const refresh = new Set<string>();
    // One copy of the session map per batch, not per event (10,000 sessions × 200 events/s).
    const before = get().sessions;
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
    if (sessions !== before) set((s) => ({ sessions, shape: deleted ? s.shape + 1 : s.shape }));
    for (const key of refresh) void get().refreshSession(key);
  },
  reset: () => set(initial),
}));

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
