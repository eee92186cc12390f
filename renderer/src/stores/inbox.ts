// The Inbox (issue 17.3): the queue of what needs the person (failed runs, upstream alerts,
// finished runs not seen yet when the person keeps that category;
// permission requests have their own store) and the history of what each watcher was told and
// when it reconciled.
import { create } from 'zustand';
import type {
  CatalogProvider,
  GatewayEvent,
  InboxItem,
  NoticeDelivery,
  PendingNotice,
} from '../../../shared/ipc';
import { call } from '../lib/api';

export type InboxTab = 'queue' | 'history';

interface InboxState {
  loaded: boolean;
  items: InboxItem[];
  tab: InboxTab;
  history: { loaded: boolean; pending: PendingNotice[]; delivered: NoticeDelivery[]; hasMore: boolean };
  load(): Promise<void>;
  loadHistory(): Promise<void>;
  loadOlderHistory(): Promise<void>;
  setTab(tab: InboxTab): void;
  /** Dismiss; a finished run is marked seen instead (its session leaves done — unseen). */
  dismiss(item: InboxItem): Promise<void>;
  readopt(provider: CatalogProvider, threadId: string, hostId?: string): Promise<string>;
  applyEvents(events: GatewayEvent[]): void;
  reset(): void;
}

const initial = {
  loaded: false,
  items: [] as InboxItem[],
  tab: 'queue' as InboxTab,
  history: {
    loaded: false,
    pending: [] as PendingNotice[],
    delivered: [] as NoticeDelivery[],
    hasMore: false,
  },
};

const byIdDesc = (a: NoticeDelivery, b: NoticeDelivery) => b.id - a.id;

/** The list being read, and the one read after it for what changed meanwhile. */
let reading: Promise<void> | undefined;
let rereading: Promise<void> | undefined;

export const useInbox = create<InboxState>()((set, get) => ({
  ...initial,
  // One read in flight and at most one after it: 200 runs ending at once push 200 statuses, and a
  // read each was 200 lists of every session (the acp-live benchmark's profile).
  load() {
    if (reading) {
      rereading ??= reading
        .catch(() => undefined)
        .then(() => {
          rereading = undefined;
          return get().load();
        });
      return rereading;
    }
    reading = call('inbox:list', {})
      .then((items) => set({ loaded: true, items }))
      .finally(() => (reading = undefined));
    return reading;
  },
  async loadHistory() {
    const page = await call('inbox:history', {});
    set({ history: { loaded: true, ...page } });
  },
  async loadOlderHistory() {
    const { delivered, hasMore } = get().history;
    const beforeId = delivered[delivered.length - 1]?.id;
    if (!hasMore || beforeId === undefined) return;
    const page = await call('inbox:history', { beforeId });
    set((s) => ({
      history: {
        ...s.history,
        delivered: [...s.history.delivered, ...page.delivered],
        hasMore: page.hasMore,
      },
    }));
  },
  setTab: (tab) => {
    set({ tab });
    if (tab === 'history') void get().loadHistory();
  },
  async dismiss(item) {
    set((s) => ({ items: s.items.filter((i) => i.id !== item.id) }));
    if (item.type === 'done_unseen') await call('sessions:seen', { sessionKey: item.sessionKey });
    else await call('inbox:dismiss', { id: item.id });
  },
  async readopt(provider, threadId, hostId) {
    const view = await call('catalog:adopt', { provider, threadId, ...(hostId ? { hostId } : {}) });
    await get().load();
    return view.key;
  },
  applyEvents(events) {
    const { items, history } = get();
    const listed = new Set(items.map((i) => i.sessionKey));
    const queueChanged = events.some(
      (e) =>
        e.type === 'session:deleted' ||
        e.type === 'worktrees:changed' ||
        (e.type === 'session:status' &&
          (e.status.status === 'failed' || e.status.status === 'done_unseen' || listed.has(e.sessionKey))) ||
        (e.type === 'state:event' && (e.event.kind === 'upstream_missing' || e.event.kind === 'adopted')),
    );
    if (queueChanged) void get().load();
    if (!history.loaded) return;
    // Deliveries and reconciliations arrive whole: applied in place; the pending list is re-read.
    const fresh = events.flatMap((e) =>
      e.type === 'notice:delivered' || e.type === 'notice:reconciled' ? [e.delivery] : [],
    );
    if (fresh.length) {
      const byId = new Map(history.delivered.map((d) => [d.id, d]));
      for (const d of fresh) byId.set(d.id, d);
      set((s) => ({ history: { ...s.history, delivered: [...byId.values()].sort(byIdDesc) } }));
    }
    if (events.some((e) => e.type === 'notice:queued' || e.type === 'notice:drained')) {
      void call('inbox:history', { limit: 1 }).then((page) =>
        set((s) => ({ history: { ...s.history, pending: page.pending } })),
      );
    }
  },
  reset: () => set(initial),
}));
