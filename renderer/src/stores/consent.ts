// Consent questions waiting for the person in browser mode: a program Sightline is about to run
// for the first time (Electron asks with a native dialog instead, so this list stays empty there).
import { create } from 'zustand';
import type { ConsentRequestView, GatewayEvent } from '../../../shared/ipc';
import { ApiCallError, call } from '../lib/api';

interface ConsentState {
  requests: ConsentRequestView[];
  answering: boolean;
  load(): Promise<void>;
  respond(requestId: string, allow: boolean): Promise<void>;
  applyEvents(events: GatewayEvent[]): void;
  reset(): void;
}

const initial = { requests: [] as ConsentRequestView[], answering: false };
const without = (list: ConsentRequestView[], id: string) => list.filter((r) => r.id !== id);

export const useConsent = create<ConsentState>()((set, get) => ({
  ...initial,
  async load() {
    set({ requests: await call('consent:list', {}) });
  },
  async respond(requestId, allow) {
    set({ answering: true });
    try {
      await call('consent:respond', { requestId, allow });
    } catch (err) {
      // Answered elsewhere (another tab) or the gateway closed: the question no longer waits.
      if (!(err instanceof ApiCallError && err.code === 'not_found')) throw err;
    } finally {
      set((s) => ({ answering: false, requests: without(s.requests, requestId) }));
    }
  },
  applyEvents(events) {
    let requests: ConsentRequestView[] | undefined;
    for (const e of events) {
      const list = requests ?? get().requests;
      if (e.type === 'consent:request')
        requests = list.some((r) => r.id === e.request.id) ? list : [...list, e.request];
      else if (e.type === 'consent:resolved') requests = without(list, e.requestId);
    }
    if (requests) set({ requests });
  },
  reset: () => set(initial),
}));
