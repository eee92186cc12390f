// The top bar's light/dark switch: flips the theme in effect and remembers it (Settings can go
// back to following the system).
import { useSyncExternalStore } from 'react';
import { effectiveTheme, usePreferences } from '../stores/preferences';
import { useUi } from '../stores/ui';
import { errorMessage } from '../lib/api';

export function toggleTheme(): void {
  const { prefs, set } = usePreferences.getState();
  const next = effectiveTheme(prefs.theme) === 'dark' ? 'light' : 'dark';
  set({ theme: next }).catch((err: unknown) => useUi.getState().setError(errorMessage(err)));
}

const DARK_QUERY = '(prefers-color-scheme: dark)';
const onSystemChange = (cb: () => void) => {
  const mq = window.matchMedia(DARK_QUERY);
  mq.addEventListener('change', cb);
  return () => mq.removeEventListener('change', cb);
};

/** Whether the theme in effect is dark; re-renders when the system switches while followed. */
export function useDarkTheme(): boolean {
  const theme = usePreferences((s) => s.prefs.theme);
  const systemDark = useSyncExternalStore(onSystemChange, () => window.matchMedia(DARK_QUERY).matches);
  return theme === 'system' ? systemDark : theme === 'dark';
}

export function ThemeToggle() {
  const theme = usePreferences((s) => s.prefs.theme);
  const dark = useDarkTheme();
  return (
    <button
      type="button"
      className="quiet"
      data-testid="theme-toggle"
      aria-label={dark ? 'Switch to the light theme' : 'Switch to the dark theme'}
      title={`${dark ? 'Dark' : 'Light'} theme${theme === 'system' ? ' (following the system)' : ''}. Click to switch.`}
      onClick={toggleTheme}
    >
      {dark ? '☾' : '☀'}
    </button>
  );
}
