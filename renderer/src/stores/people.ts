// Settings → People (a gateway a team shares): who I am, the accounts, the audit view. `local`:
// this is the person's own gateway, which has no accounts (the channels answer `unavailable`).
import { create } from 'zustand';
import type { AccountView, AuditEntryView } from '../../../shared/ipc/accounts';
import { ApiCallError, call, errorMessage } from '../lib/api';

interface PeopleState {
  local: boolean;
  me: AccountView | null;
  people: AccountView[];
  audit: AuditEntryView[];
  /** The invitation just made: shown once. */
  invite: string | null;
  error: string | null;
  load(): Promise<void>;
  invitePerson(): Promise<void>;
  revoke(accountId: string): Promise<void>;
}

export const usePeople = create<PeopleState>()((set, get) => ({
  local: false,
  me: null,
  people: [],
  audit: [],
  invite: null,
  error: null,
  async load() {
    try {
      const [me, people, audit] = await Promise.all([
        call('accounts:me', {}),
        call('accounts:list', {}),
        call('audit:list', { limit: 100 }),
      ]);
      set({ me, people, audit, error: null });
    } catch (err) {
      if (err instanceof ApiCallError && err.code === 'unavailable') set({ local: true });
      else set({ error: errorMessage(err) });
    }
  },
  async invitePerson() {
    try {
      set({ invite: (await call('accounts:invite', {})).code });
      await get().load();
    } catch (err) {
      set({ error: errorMessage(err) });
    }
  },
  async revoke(accountId) {
    try {
      await call('accounts:revoke', { accountId });
      await get().load();
    } catch (err) {
      set({ error: errorMessage(err) });
    }
  },
}));
