// Watchers of the open session: who holds a cursor on it, and whose cursors it holds.
import { create } from 'zustand';
import type { GatewayEvent, WatchersView } from '../../../shared/ipc';
import { call } from '../lib/api';

interface WatchersState {
  key: string | null;
  view: WatchersView | null;
  open(key: string): Promise<void>;
  refresh(): Promise<void>;
  applyEvents(events: GatewayEvent[]): void;
  reset(): void;
}

const initial = { key: null as string | null, view: null as WatchersView | null };

export const useWatchers = create<WatchersState>()((set, get) => ({
  ...initial,
  async open(key) {
    set({ key, view: null });
    await get().refresh();
  },
  async refresh() {
    const key = get().key;
    if (!key) return;
    const view = await call('watchers:get', { sessionKey: key });
    if (get().key === key) set({ view });
  },
  applyEvents(events) {
    const { key, view } = get();
    if (!key) return;
    const related = new Set<string>([key]);
    for (const c of view?.watching ?? []) related.add(c.target);
    for (const c of view?.watchedBy ?? []) related.add(c.watcher);
    const touches = events.some((e) => {
      switch (e.type) {
        case 'cursor:changed':
          return related.has(e.watcher) || related.has(e.target);
        case 'state:event':
        case 'notice:queued':
        case 'notice:drained':
          return related.has(e.sessionKey);
        default:
          return false;
      }
    });
    if (touches) void get().refresh();
  },
  reset: () => set(initial),
}));
