// Paired nodes (Settings → Nodes): other machines whose catalogs Sightline reads over SSH. The
// gateway keeps their state (online / offline since, last check, sessions seen) and says
// `nodes:changed` when it moves.
import { create } from 'zustand';
import type { ArgsOf, GatewayEvent, NodeInfo } from '../../../shared/ipc';
import { call } from '../lib/api';

interface NodesState {
  loaded: boolean;
  nodes: NodeInfo[];
  /** An add in progress (reaching the machine can take a while: SSH, copying the node file). */
  adding: boolean;
  load(): Promise<void>;
  add(input: ArgsOf<'nodes:add'>): Promise<NodeInfo>;
  rename(id: string, name: string): Promise<void>;
  remove(id: string): Promise<void>;
  applyEvents(events: GatewayEvent[]): void;
  reset(): void;
}

const initial = { loaded: false, nodes: [] as NodeInfo[], adding: false };

const put = (list: NodeInfo[], n: NodeInfo) =>
  list.some((x) => x.id === n.id) ? list.map((x) => (x.id === n.id ? n : x)) : [...list, n];

export const useNodes = create<NodesState>()((set, get) => ({
  ...initial,
  async load() {
    set({ nodes: await call('nodes:list', {}), loaded: true });
  },
  async add(input) {
    set({ adding: true });
    try {
      const n = await call('nodes:add', input);
      set((s) => ({ nodes: put(s.nodes, n) }));
      return n;
    } finally {
      set({ adding: false });
    }
  },
  async rename(id, name) {
    const n = await call('nodes:rename', { id, name });
    set((s) => ({ nodes: put(s.nodes, n) }));
  },
  async remove(id) {
    await call('nodes:remove', { id });
    set((s) => ({ nodes: s.nodes.filter((n) => n.id !== id) }));
  },
  applyEvents(events) {
    if (get().loaded && events.some((e) => e.type === 'nodes:changed')) void get().load();
  },
  reset: () => set(initial),
}));
