// Settings → ACP registry: the registry's agents, where the list came from, and what installing
// one does; the install records of profiles that came from it (SHA-256 of what was installed).
import { create } from 'zustand';
import type {
  AcpInstallInfo,
  AcpProfileView,
  RegistryDistribution,
  RegistryInstallPlan,
  RegistryListingView,
} from '../../../shared/ipc';
import { call } from '../lib/api';
import { useProfiles } from './profiles';

interface RegistryState {
  listing: RegistryListingView | null;
  /** When the listing was received (its age is measured against this, not during render). */
  listedAt: number;
  loading: boolean;
  installs: AcpInstallInfo[];
  load(refresh?: boolean): Promise<void>;
  loadInstalls(): Promise<void>;
  plan(agentId: string, distribution?: RegistryDistribution): Promise<RegistryInstallPlan>;
  install(
    agentId: string,
    distribution?: RegistryDistribution,
    env?: Record<string, string>,
  ): Promise<AcpProfileView>;
  reset(): void;
}

const initial = {
  listing: null as RegistryListingView | null,
  listedAt: 0,
  loading: false,
  installs: [] as AcpInstallInfo[],
};

export const useRegistry = create<RegistryState>()((set, get) => ({
  ...initial,
  async load(refresh = false) {
    set({ loading: true });
    try {
      set({ listing: await call('acp:registry:list', refresh ? { refresh } : {}), listedAt: Date.now() });
    } finally {
      set({ loading: false });
    }
  },
  async loadInstalls() {
    set({ installs: await call('acp:installs:list', {}) });
  },
  plan: (agentId, distribution) =>
    call('acp:registry:plan', { agentId, ...(distribution ? { distribution } : {}) }),
  async install(agentId, distribution, env) {
    const profile = await call('acp:registry:install', {
      agentId,
      ...(distribution ? { distribution } : {}),
      ...(env && Object.keys(env).length ? { env } : {}),
    });
    await Promise.all([useProfiles.getState().load(), get().loadInstalls(), get().load()]);
    return profile;
  },
  reset: () => set(initial),
}));
