// The signal log of the open session, newest first, filtered by kind and actor, live.
import { create } from 'zustand';
import type { ActorType, EventKind, GatewayEvent, StateEventRow } from '../../../shared/ipc';
import { call } from '../lib/api';

interface TimelineState {
  key: string | null;
  events: StateEventRow[];
  hasMore: boolean;
  loading: boolean;
  kinds: EventKind[];
  actorTypes: ActorType[];
  open(key: string): Promise<void>;
  loadOlder(): Promise<void>;
  toggleKind(kind: EventKind): void;
  toggleActor(actor: ActorType): void;
  applyEvents(events: GatewayEvent[]): void;
  reset(): void;
}

const initial = {
  key: null as string | null,
  events: [] as StateEventRow[],
  hasMore: false,
  loading: false,
  kinds: [] as EventKind[],
  actorTypes: [] as ActorType[],
};

const toggle = <T>(list: T[], v: T): T[] => (list.includes(v) ? list.filter((x) => x !== v) : [...list, v]);

export const useTimeline = create<TimelineState>()((set, get) => {
  const fetchPage = async (beforeSequence?: number) => {
    const { key, kinds, actorTypes } = get();
    if (!key) return undefined;
    return call('timeline:page', {
      sessionKey: key,
      ...(beforeSequence !== undefined ? { beforeSequence } : {}),
      ...(kinds.length ? { kinds } : {}),
      ...(actorTypes.length ? { actorTypes } : {}),
    });
  };
  let generation = 0;
  const reload = async () => {
    const gen = ++generation;
    // Start empty: rows pushed while the page is in flight land here and are kept (they are newer).
    set({ events: [], hasMore: false, loading: true });
    const page = await fetchPage();
    if (!page || gen !== generation) return;
    const seen = new Set(page.events.map((e) => e.sequence));
    const live = get().events.filter((e) => !seen.has(e.sequence));
    set({ events: [...live, ...page.events], hasMore: page.hasMore, loading: false });
  };
  return {
    ...initial,
    async open(key) {
      set({ key, events: [], hasMore: false });
      await reload();
    },
    async loadOlder() {
      const { events, hasMore, loading, key } = get();
      if (!hasMore || loading) return;
      set({ loading: true });
      const gen = generation;
      const page = await fetchPage(events[events.length - 1]?.sequence);
      if (!page || gen !== generation || get().key !== key) return;
      set((s) => ({ events: [...s.events, ...page.events], hasMore: page.hasMore, loading: false }));
    },
    toggleKind(kind) {
      set((s) => ({ kinds: toggle(s.kinds, kind) }));
      void reload();
    },
    toggleActor(actor) {
      set((s) => ({ actorTypes: toggle(s.actorTypes, actor) }));
      void reload();
    },
    applyEvents(events) {
      const { key, kinds, actorTypes } = get();
      if (!key) return;
      const fresh: StateEventRow[] = [];
      for (const e of events) {
        if (e.type !== 'state:event' || e.sessionKey !== key) continue;
        if (kinds.length && !kinds.includes(e.event.kind)) continue;
        if (actorTypes.length && !actorTypes.includes(e.event.actorType)) continue;
        fresh.push({ ...e.event, sessionKey: e.sessionKey, agentId: e.agentId });
      }
      if (!fresh.length) return;
      set((s) => {
        const have = new Set(s.events.map((x) => x.sequence));
        const add = fresh.filter((x) => !have.has(x.sequence)).sort((a, b) => b.sequence - a.sequence);
        return { events: [...add, ...s.events] };
      });
    },
    reset: () => set(initial),
  };
});
