// The session catalog: sessions of other tools on this machine and on paired nodes, and adopting one.
import { create } from 'zustand';
import type { CatalogEntry, CatalogRootView, GatewayEvent } from '../../../shared/ipc';
import { call } from '../lib/api';

interface CatalogState {
  loaded: boolean;
  loading: boolean;
  entries: CatalogEntry[];
  /** Where the catalog looks (read with each scan: a folder may have appeared). */
  roots: CatalogRootView[];
  filter: string;
  /** Only the sessions of this host (a node id or this machine's); '' for every host. */
  host: string;
  groupByFolder: boolean;
  setFilter(filter: string): void;
  setHost(host: string): void;
  setGroupByFolder(on: boolean): void;
  load(): Promise<void>;
  adopt(entry: Pick<CatalogEntry, 'provider' | 'threadId' | 'hostId' | 'remote'>): Promise<string>;
  applyEvents(events: GatewayEvent[]): void;
  reset(): void;
}

const initial = {
  loaded: false,
  loading: false,
  entries: [] as CatalogEntry[],
  roots: [] as CatalogRootView[],
  filter: '',
  host: '',
  groupByFolder: true,
};

export const useCatalog = create<CatalogState>()((set, get) => ({
  ...initial,
  setFilter: (filter) => set({ filter }),
  setHost: (host) => set({ host }),
  setGroupByFolder: (groupByFolder) => set({ groupByFolder }),
  async load() {
    set({ loading: true });
    try {
      const [entries, roots] = await Promise.all([call('catalog:list', {}), call('catalog:roots', {})]);
      set({ entries, roots, loaded: true });
    } finally {
      set({ loading: false });
    }
  },
  async adopt({ provider, threadId, hostId, remote }) {
    const view = await call('catalog:adopt', { provider, threadId, ...(remote ? { hostId } : {}) });
    set((s) => ({
      entries: s.entries.map((e) =>
        e.provider === provider && e.threadId === threadId && e.hostId === hostId
          ? { ...e, adopted: true }
          : e,
      ),
    }));
    return view.key;
  },
  applyEvents(events) {
    if (get().loaded && events.some((e) => e.type === 'catalog:changed')) void get().load();
  },
  reset: () => set(initial),
}));
