// The open session's transcript (paged backwards, live appends) and what the composer does with it.
import { create } from 'zustand';
import type { GatewayEvent, NoticeDelivery, TranscriptMessage } from '../../../shared/ipc';
import { useLive } from './live';
import { call } from '../lib/api';

interface TranscriptState {
  key: string | null;
  messages: TranscriptMessage[];
  /** Notices the session's turns read, each shown after the message its turn had read up to. */
  notices: NoticeDelivery[];
  hasMore: boolean;
  loading: boolean;
  sending: boolean;
  open(key: string): Promise<void>;
  loadOlder(): Promise<void>;
  send(text: string): Promise<void>;
  cancelRun(): Promise<boolean>;
  applyEvents(events: GatewayEvent[]): void;
  reset(): void;
}

const initial = {
  key: null as string | null,
  messages: [] as TranscriptMessage[],
  notices: [] as NoticeDelivery[],
  hasMore: false,
  loading: false,
  sending: false,
};

function merge(a: TranscriptMessage[], b: TranscriptMessage[]): TranscriptMessage[] {
  const byId = new Map<number, TranscriptMessage>();
  for (const m of a) byId.set(m.id, m);
  for (const m of b) byId.set(m.id, m);
  return [...byId.values()].sort((x, y) => x.id - y.id);
}

function mergeNotices(a: NoticeDelivery[], b: NoticeDelivery[]): NoticeDelivery[] {
  const byId = new Map<number, NoticeDelivery>();
  for (const n of a) byId.set(n.id, n);
  for (const n of b) byId.set(n.id, n);
  return [...byId.values()].sort((x, y) => x.afterMessageId - y.afterMessageId || x.id - y.id);
}

export const useTranscript = create<TranscriptState>()((set, get) => ({
  ...initial,
  async open(key) {
    set({ ...initial, key, loading: true });
    const page = await call('transcript:page', { sessionKey: key });
    if (get().key !== key) return;
    useLive.getState().seed(key, page.live);
    set((s) => ({
      messages: merge(page.messages, s.messages),
      notices: mergeNotices(page.notices, s.notices),
      hasMore: page.hasMore,
      loading: false,
    }));
  },
  async loadOlder() {
    const { key, messages, hasMore, loading } = get();
    if (!key || !hasMore || loading) return;
    set({ loading: true });
    const beforeId = messages[0]?.id;
    const page = await call('transcript:page', { sessionKey: key, ...(beforeId ? { beforeId } : {}) });
    if (get().key !== key) return;
    set((s) => ({
      messages: merge(page.messages, s.messages),
      notices: mergeNotices(page.notices, s.notices),
      hasMore: page.hasMore,
      loading: false,
    }));
  },
  async send(text) {
    const key = get().key;
    if (!key) return;
    set({ sending: true });
    try {
      await call('human:send', { sessionKey: key, text });
    } finally {
      set({ sending: false });
    }
  },
  async cancelRun() {
    const key = get().key;
    if (!key) return false;
    return (await call('runs:cancel', { sessionKey: key })).cancelled;
  },
  applyEvents(events) {
    const key = get().key;
    if (!key) return;
    const fresh = events.flatMap((e) =>
      e.type === 'transcript:appended' && e.message.sessionKey === key ? [e.message] : [],
    );
    const notices = events.flatMap((e) =>
      (e.type === 'notice:delivered' || e.type === 'notice:reconciled') && e.delivery.watcher === key
        ? [e.delivery]
        : [],
    );
    if (fresh.length) set((s) => ({ messages: merge(s.messages, fresh) }));
    if (notices.length) set((s) => ({ notices: mergeNotices(s.notices, notices) }));
  },
  reset: () => set(initial),
}));
