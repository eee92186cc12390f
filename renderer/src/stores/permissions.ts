// Permission questions from ACP children, waiting for the person: pushed in as they are asked,
// gone as soon as they are answered (here, in another window, or because the child stopped).
import { useMemo } from 'react';
import { create } from 'zustand';
import type { GatewayEvent, PermissionRequestView } from '../../../shared/ipc';
import { ApiCallError, call } from '../lib/api';

interface PermissionsState {
  loaded: boolean;
  requests: PermissionRequestView[];
  /** Request ids with an answer in flight (their buttons are disabled). */
  answering: string[];
  load(): Promise<void>;
  /** `optionId` undefined rejects. */
  respond(requestId: string, optionId: string | undefined): Promise<void>;
  applyEvents(events: GatewayEvent[]): void;
  reset(): void;
}

const initial = { loaded: false, requests: [] as PermissionRequestView[], answering: [] as string[] };

const without = (list: PermissionRequestView[], id: string) => list.filter((r) => r.id !== id);

export const usePermissions = create<PermissionsState>()((set) => ({
  ...initial,
  async load() {
    const requests = await call('acp:permissions:list', {});
    set({ loaded: true, requests });
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
    let requests: PermissionRequestView[] | undefined;
    for (const e of events) {
      if (e.type === 'acp:permission') {
        const list = requests ?? usePermissions.getState().requests;
        requests = list.some((r) => r.id === e.request.id) ? list : [...list, e.request];
      } else if (e.type === 'acp:permission-resolved') {
        requests = without(requests ?? usePermissions.getState().requests, e.requestId);
      }
    }
    if (requests) set({ requests });
  },
  reset: () => set(initial),
}));

/** The pending requests of one session (stable while nothing changes for it). */
export function useSessionPermissions(sessionKey: string): PermissionRequestView[] {
  const requests = usePermissions((s) => s.requests);
  return useMemo(() => requests.filter((r) => r.sessionKey === sessionKey), [requests, sessionKey]);
}
