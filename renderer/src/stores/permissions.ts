// Permission questions from ACP children, waiting for the person: pushed in as they are asked,
// gone as soon as they are answered (here, in another window, or because the child stopped).
// On a shared gateway, a request asked of someone else (`askedOf`) is kept apart: it does not
// wait for this person (no inbox item, no count), the session's banner says who was asked.
import { useMemo } from 'react';
import { create } from 'zustand';
import type { GatewayEvent, PermissionRequestView } from '../../../shared/ipc';
import { ApiCallError, call } from '../lib/api';

interface PermissionsState {
  loaded: boolean;
  requests: PermissionRequestView[];
  /** Requests another person answers (shared gateway). */
  askedOthers: PermissionRequestView[];
  /** Request ids with an answer in flight (their buttons are disabled). */
  answering: string[];
  load(): Promise<void>;
  /** `optionId` undefined rejects. */
  respond(requestId: string, optionId: string | undefined): Promise<void>;
  applyEvents(events: GatewayEvent[]): void;
  reset(): void;
}

const initial = {
  loaded: false,
  requests: [] as PermissionRequestView[],
  askedOthers: [] as PermissionRequestView[],
  answering: [] as string[],
};

const without = (list: PermissionRequestView[], id: string) => list.filter((r) => r.id !== id);
const mine = (r: PermissionRequestView) => r.askedOf === undefined;

export const usePermissions = create<PermissionsState>()((set) => ({
  ...initial,
  async load() {
    const all = await call('acp:permissions:list', {});
    set({ loaded: true, requests: all.filter(mine), askedOthers: all.filter((r) => !mine(r)) });
  },
  async respond(requestId, optionId) {
    set((s) => ({ answering: [...s.answering, requestId] }));
    try {
      await call('acp:permissions:respond', { requestId, ...(optionId !== undefined ? { optionId } : {}) });
      set((s) => ({ requests: without(s.requests, requestId) }));
    } catch (err) {
      // Answered elsewhere or the child is gone: the question no longer waits.
      if (err instanceof ApiCallError && err.code === 'not_found') {
        set((s) => ({ requests: without(s.requests, requestId) }));
        return;
      }
      throw err;
    } finally {
      set((s) => ({ answering: s.answering.filter((id) => id !== requestId) }));
    }
  },
  applyEvents(events) {
    let { requests, askedOthers } = usePermissions.getState();
    let changed = false;
    for (const e of events) {
      if (e.type !== 'acp:permission' && e.type !== 'acp:permission-resolved') continue;
      const id = e.type === 'acp:permission' ? e.request.id : e.requestId;
      if (e.type === 'acp:permission' && mine(e.request) && requests.some((r) => r.id === id)) continue;
      // Asked again (a revoked person's request handed to the owners): the newer view wins.
      requests = without(requests, id);
      askedOthers = without(askedOthers, id);
      if (e.type === 'acp:permission') {
        if (mine(e.request)) requests = [...requests, e.request];
        else askedOthers = [...askedOthers, e.request];
      }
      changed = true;
    }
    if (changed) set({ requests, askedOthers });
  },
  reset: () => set(initial),
}));

/** The pending requests of one session (stable while nothing changes for it). */
export function useSessionPermissions(sessionKey: string): PermissionRequestView[] {
  const requests = usePermissions((s) => s.requests);
  return useMemo(() => requests.filter((r) => r.sessionKey === sessionKey), [requests, sessionKey]);
}

/** The requests of one session that another person answers (shared gateway). */
export function useSessionAskedOthers(sessionKey: string): PermissionRequestView[] {
  const askedOthers = usePermissions((s) => s.askedOthers);
  return useMemo(() => askedOthers.filter((r) => r.sessionKey === sessionKey), [askedOthers, sessionKey]);
}
