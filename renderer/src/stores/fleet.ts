// The fleet: agents and every session as a SessionView, kept live from pushed gateway events.
import { create } from 'zustand';
import type { AgentView, DemoFleet, GatewayEvent, SessionView } from '../../../shared/ipc';
import { call } from '../lib/api';

interface FleetState {
  loaded: boolean;
  agents: AgentView[];
  sessions: Record<string, SessionView>;
  filter: string;
  demoStarting: boolean;
  load(): Promise<void>;
  refreshSession(key: string): Promise<void>;
  setFilter(filter: string): void;
  startDemo(): Promise<DemoFleet>;
  applyEvents(events: GatewayEvent[]): void;
  reset(): void;
}

const initial = {
  loaded: false,
  agents: [] as AgentView[],
  sessions: {} as Record<string, SessionView>,
  filter: '',
  demoStarting: false,
};

export const useFleet = create<FleetState>()((set, get) => ({
  ...initial,
  async load() {
    const snap = await call('fleet:snapshot', {});
    const sessions: Record<string, SessionView> = {};
    for (const s of snap.sessions) sessions[s.key] = s;
    set({ loaded: true, agents: snap.agents, sessions });
  },
  async refreshSession(key) {
    try {
      const view = await call('sessions:get', { sessionKey: key });
      set((s) => ({ sessions: { ...s.sessions, [view.key]: view } }));
    } catch {
      set((s) => {
        const { [key]: _gone, ...rest } = s.sessions;
        return { sessions: rest };
      });
    }
  },
  setFilter: (filter) => set({ filter }),
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
    let sessions = get().sessions;
    const patch = (key: string, fn: (v: SessionView) => SessionView) => {
      const v = sessions[key];
      if (v) sessions = { ...sessions, [key]: fn(v) };
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
          patch(e.run.sessionKey, (v) => ({
            ...v,
            runStatus: e.run.status,
            tokens: { input: e.run.inputTokens, output: e.run.outputTokens },
          }));
          break;
        case 'notice:queued':
        case 'notice:drained':
        case 'session:changed':
          refresh.add(e.sessionKey);
          break;
        case 'session:deleted': {
          const { [e.sessionKey]: _gone, ...rest } = sessions;
          sessions = rest;
          break;
        }
        default:
          break;
      }
    }
    if (sessions !== get().sessions) set({ sessions });
    for (const key of refresh) void get().refreshSession(key);
  },
  reset: () => set(initial),
}));

/** Sessions that need the person: pending notices, an upstream alert, or a failed run. */
export function needsAttention(s: SessionView): boolean {
  return s.pendingNotices > 0 || s.alert !== null || s.runStatus === 'failed';
}
