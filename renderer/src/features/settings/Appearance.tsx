// Settings → Appearance: light, dark, or following the system (prefers-color-scheme).
import { THEMES, type Theme } from '../../../../shared/ipc';
import { usePreferences } from '../../stores/preferences';
import { useUi } from '../../stores/ui';
import { errorMessage } from '../../lib/api';

const LABEL: Record<Theme, string> = { system: 'Follow the system', light: 'Light', dark: 'Dark' };

export function Appearance() {
  const theme = usePreferences((s) => s.prefs.theme);
  const set = usePreferences((s) => s.set);
  const setError = useUi((s) => s.setError);
  return (
    <section className="settings-section" data-testid="appearance">
      <h2>Appearance</h2>
      <div className="segmented" role="radiogroup" aria-label="Theme">
        {THEMES.map((t) => (
          <label key={t} className={theme === t ? 'on' : ''}>
            <input
              type="radio"
              name="theme"
              value={t}
              checked={theme === t}
              data-testid={`theme-${t}`}
              onChange={() => set({ theme: t }).catch((err: unknown) => setError(errorMessage(err)))}
            />
            {LABEL[t]}
          </label>
        ))}
      </div>
      <p className="muted small">Also in the top bar and the command palette (“Toggle dark theme”).</p>
    </section>
  );
}
