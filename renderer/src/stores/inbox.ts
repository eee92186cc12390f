// Pending notices and upstream_missing alerts, the things that need the person.
import { create } from 'zustand';
import type { CatalogProvider, GatewayEvent, InboxItem } from '../../../shared/ipc';
import { call } from '../lib/api';

interface InboxState {
  loaded: boolean;
  items: InboxItem[];
  load(): Promise<void>;
  dismiss(id: string): Promise<void>;
  readopt(provider: CatalogProvider, threadId: string, hostId?: string): Promise<string>;
  applyEvents(events: GatewayEvent[]): void;
  reset(): void;
}

const initial = { loaded: false, items: [] as InboxItem[] };

export const useInbox = create<InboxState>()((set, get) => ({
  ...initial,
  async load() {
    const items = await call('inbox:list', {});
    set({ loaded: true, items });
  },
  async dismiss(id) {
    set((s) => ({ items: s.items.filter((i) => i.id !== id) }));
    await call('inbox:dismiss', { id });
  },
  async readopt(provider, threadId, hostId) {
    const view = await call('catalog:adopt', { provider, threadId, ...(hostId ? { hostId } : {}) });
    await get().load();
    return view.key;
  },
  applyEvents(events) {
    const relevant = events.some(
      (e) =>
        e.type === 'notice:queued' ||
        e.type === 'notice:drained' ||
        e.type === 'session:deleted' ||
        (e.type === 'state:event' && (e.event.kind === 'upstream_missing' || e.event.kind === 'adopted')),
    );
    if (relevant) void get().load();
  },
  reset: () => set(initial),
}));
