// ACP agent profiles (settings): how the gateway starts an ACP agent for `sessions_spawn`.
import { create } from 'zustand';
import type { AcpProfileView, ArgsOf } from '../../../shared/ipc';
import { call } from '../lib/api';

interface ProfilesState {
  loaded: boolean;
  profiles: AcpProfileView[];
  load(): Promise<void>;
  save(input: ArgsOf<'acp:profiles:save'>): Promise<AcpProfileView>;
  remove(id: string): Promise<boolean>;
  reset(): void;
}

const initial = { loaded: false, profiles: [] as AcpProfileView[] };

const byName = (a: AcpProfileView, b: AcpProfileView) => a.name.localeCompare(b.name);

export const useProfiles = create<ProfilesState>()((set) => ({
  ...initial,
  async load() {
    set({ profiles: await call('acp:profiles:list', {}), loaded: true });
  },
  async save(input) {
    const saved = await call('acp:profiles:save', input);
    set((s) => ({ profiles: [...s.profiles.filter((p) => p.id !== saved.id), saved].sort(byName) }));
    return saved;
  },
  async remove(id) {
    const { removed } = await call('acp:profiles:remove', { id });
    set((s) => ({ profiles: s.profiles.filter((p) => p.id !== id) }));
    return removed;
  },
  reset: () => set(initial),
}));
