// Navigation and chrome: which view and session are open, the palette, the last error.
import { create } from 'zustand';
import type { AppInfo } from '../../../shared/ipc';
import { call } from '../lib/api';

export type View = 'session' | 'inbox' | 'search' | 'catalog' | 'settings' | 'guide';
export type SessionTab = 'transcript' | 'timeline' | 'watchers' | 'changes';

interface UiState {
  view: View;
  tab: SessionTab;
  selectedKey: string | null;
  /** A transcript message to bring into view (a search result), until the transcript shows it. */
  focusedMessageId: number | null;
  paletteOpen: boolean;
  error: string | null;
  /** A short status line shown for a moment (e.g. "Nothing needs you right now."). */
  flashText: string | null;
  flash(text: string): void;
  /** Name, version, mode and data folder of the running app. */
  app: AppInfo | null;
  loadApp(): Promise<void>;
  openSession(key: string, tab?: SessionTab): void;
  focusMessage(id: number | null): void;
  setView(view: View): void;
  setTab(tab: SessionTab): void;
  setPalette(open: boolean): void;
  setError(error: string | null): void;
  reset(): void;
}

const initial = {
  view: 'session' as View,
  tab: 'transcript' as SessionTab,
  selectedKey: null as string | null,
  focusedMessageId: null as number | null,
  paletteOpen: false,
  error: null as string | null,
  flashText: null as string | null,
  app: null as AppInfo | null,
};

const FLASH_MS = 3000;
let flashTimer: ReturnType<typeof setTimeout> | undefined;

export const useUi = create<UiState>()((set) => ({
  ...initial,
  openSession: (key, tab) =>
    set((s) => ({ selectedKey: key, view: 'session', tab: tab ?? s.tab, focusedMessageId: null })),
  focusMessage: (focusedMessageId) => set({ focusedMessageId }),
  setView: (view) => set({ view }),
  setTab: (tab) => set({ tab, view: 'session' }),
  setPalette: (paletteOpen) => set({ paletteOpen }),
  setError: (error) => set({ error }),
  flash(text) {
    set({ flashText: text });
    clearTimeout(flashTimer);
    flashTimer = setTimeout(() => set({ flashText: null }), FLASH_MS);
  },
  async loadApp() {
    set({ app: await call('app:info', {}) });
  },
  reset: () => set(initial),
}));
