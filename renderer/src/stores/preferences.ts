// The person's UI preferences (theme, notifications), kept by the gateway so they survive browser
// mode's changing port; the theme is applied to <html data-theme> at once.
import { create } from 'zustand';
import { DEFAULT_PREFERENCES, type ArgsOf, type Preferences, type Theme } from '../../../shared/ipc';
import { call } from '../lib/api';

interface PreferencesState {
  loaded: boolean;
  prefs: Preferences;
  load(): Promise<void>;
  set(patch: ArgsOf<'prefs:set'>): Promise<void>;
  reset(): void;
}

export function applyTheme(theme: Theme): void {
  const root = document.documentElement;
  if (theme === 'system') delete root.dataset.theme;
  else root.dataset.theme = theme;
}

/** The theme in effect: the chosen one, or the system's. */
export function effectiveTheme(theme: Theme): 'light' | 'dark' {
  if (theme !== 'system') return theme;
  return window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

const initial = { loaded: false, prefs: DEFAULT_PREFERENCES };

export const usePreferences = create<PreferencesState>()((set, get) => ({
  ...initial,
  async load() {
    const prefs = await call('prefs:get', {});
    applyTheme(prefs.theme);
    set({ loaded: true, prefs });
  },
  async set(patch) {
    const before = get().prefs;
    // Optimistic: the toggle answers at once; the gateway's answer is the truth.
    const optimistic = {
      theme: patch.theme ?? before.theme,
      notifications: { ...before.notifications, ...patch.notifications },
      inbox: { ...before.inbox, ...patch.inbox },
      nodes: { ...before.nodes, ...patch.nodes },
    };
    applyTheme(optimistic.theme);
    set({ prefs: optimistic });
    try {
      const prefs = await call('prefs:set', patch);
      applyTheme(prefs.theme);
      set({ prefs });
    } catch (err) {
      applyTheme(before.theme);
      set({ prefs: before });
      throw err;
    }
  },
  reset: () => set(initial),
}));
