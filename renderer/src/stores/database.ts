// The state database as the person sees it: its path, the rolling backups, and what the app did
// to it (a damaged file moved aside, a backup restored). Restoring swaps the database under the
// gateway; when the swap is done the page reloads, so every store starts from the restored data.
import { create } from 'zustand';
import type { DatabaseStatus } from '../../../shared/ipc';
import { call } from '../lib/api';

interface DatabaseState {
  status: DatabaseStatus | undefined;
  /** The notice banner was put away (for this page load). */
  dismissed: boolean;
  /** The backup being restored, until the page reloads. */
  restoring: string | undefined;
  load(): Promise<void>;
  dismiss(): void;
  restore(name: string): Promise<void>;
  reset(): void;
}

const initial = { status: undefined, dismissed: false, restoring: undefined };
const POLL_MS = 200;
const POLL_LIMIT = 150;

export const useDatabase = create<DatabaseState>()((set, get) => ({
  ...initial,
  async load() {
    set({ status: await call('database:status', {}) });
  },
  dismiss: () => set({ dismissed: true }),
  async restore(name) {
    const before = get().status?.notice?.at;
    set({ restoring: name });
    try {
      await call('database:restore', { name });
      // The gateway swaps right after answering: wait for its notice about this restore.
      for (let i = 0; i < POLL_LIMIT; i++) {
        await new Promise((r) => setTimeout(r, POLL_MS));
        const status = await call('database:status', {}).catch(() => undefined);
        const n = status?.notice;
        if (n && n.at !== before && n.restoredFrom === name && n.kind !== 'damaged') {
          window.location.reload();
          return;
        }
      }
      throw new Error(`Restoring ${name} did not finish; reload the page to see the database in use`);
    } catch (err) {
      set({ restoring: undefined });
      throw err;
    }
  },
  reset: () => set(initial),
}));
