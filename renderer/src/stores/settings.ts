// Agent settings: provider, model, base URL, API key (write-only), system prompt, heartbeat.
import { create } from 'zustand';
import type { AgentView, ArgsOf } from '../../../shared/ipc';
import { call } from '../lib/api';
import { useFleet } from './fleet';

interface SettingsState {
  agents: AgentView[];
  loaded: boolean;
  saving: boolean;
  load(): Promise<void>;
  save(input: ArgsOf<'agents:save'>): Promise<AgentView>;
  reset(): void;
}

const initial = { agents: [] as AgentView[], loaded: false, saving: false };

export const useSettings = create<SettingsState>()((set) => ({
  ...initial,
  async load() {
    set({ agents: await call('agents:list', {}), loaded: true });
  },
  async save(input) {
    set({ saving: true });
    try {
      const saved = await call('agents:save', input);
      set((s) => ({
        agents: s.agents.some((a) => a.id === saved.id)
          ? s.agents.map((a) => (a.id === saved.id ? saved : a))
          : [...s.agents, saved],
      }));
      void useFleet.getState().load();
      return saved;
    } finally {
      set({ saving: false });
    }
  },
  reset: () => set(initial),
}));
