// Settings → Notifications (issue 17.4): which events notify the person. Electron shows them
// natively; a browser shows them once the person allowed it here.
import { useState } from 'react';
import type { NotificationPreferences } from '../../../../shared/ipc';
import { LIMITS } from '../../../../shared/ipc/limits';
import { usePreferences } from '../../stores/preferences';
import { useUi } from '../../stores/ui';
import { errorMessage } from '../../lib/api';
import { notificationsSupported } from '../../stores/notify';
import { Checkbox } from '../../components/Checkbox';

type Flag = 'waiting' | 'failed' | 'finished' | 'upstreamMissing';

const FLAGS: { flag: Flag; label: string }[] = [
  { flag: 'waiting', label: 'A session waits for me (a permission request, a question, consent)' },
  { flag: 'failed', label: 'A run failed' },
  { flag: 'finished', label: 'A long run finished' },
  { flag: 'upstreamMissing', label: "An adopted session's upstream disappeared" },
];

function BrowserPermission() {
  const [permission, setPermission] = useState(() =>
    notificationsSupported() ? Notification.permission : 'unsupported',
  );
  if (permission === 'unsupported')
    return <p className="muted small">This browser cannot show notifications.</p>;
  return (
    <p className="small inline" data-testid="notify-permission" data-permission={permission}>
      {permission === 'granted' && 'This browser shows Sightline’s notifications.'}
      {permission === 'denied' &&
        'This browser blocks Sightline’s notifications; allow them in its site settings.'}
      {permission === 'default' && (
        <button
          type="button"
          data-testid="notify-allow"
          onClick={() => void Notification.requestPermission().then(setPermission)}
        >
          Allow notifications in this browser
        </button>
      )}
    </p>
  );
}

export function Notifications() {
  const prefs = usePreferences((s) => s.prefs.notifications);
  const set = usePreferences((s) => s.set);
  const mode = useUi((s) => s.app?.mode);
  const setError = useUi((s) => s.setError);
  const save = (patch: Partial<NotificationPreferences>) =>
    set({ notifications: patch }).catch((err: unknown) => setError(errorMessage(err)));
  const { min, max } = LIMITS.longRunSeconds;
  return (
    <section className="settings-section" data-testid="notification-settings">
      <h2>Notifications</h2>
      <p className="muted small">
        At most one per session a minute, and none for the session you are looking at. Clicking one opens the
        session.
      </p>
      {FLAGS.map(({ flag, label }) => (
        <Checkbox
          key={flag}
          className="block"
          testId={`notify-${flag}`}
          checked={prefs[flag]}
          onChange={(on) => void save({ [flag]: on })}
        >
          {label}
          {flag === 'finished' && (
            <>
              {' '}
              taking at least{' '}
              <input
                type="number"
                className="narrow"
                aria-label="Seconds a run must take"
                data-testid="notify-long-run"
                min={min}
                max={max}
                defaultValue={prefs.longRunSeconds}
                onBlur={(e) => {
                  const v = Number(e.target.value);
                  if (Number.isInteger(v) && v >= min && v <= max) void save({ longRunSeconds: v });
                  else e.target.value = String(prefs.longRunSeconds);
                }}
              />{' '}
              seconds
            </>
          )}
        </Checkbox>
      ))}
      {mode === 'web' ? (
        <BrowserPermission />
      ) : (
        <p className="muted small">Shown as desktop notifications by the app.</p>
      )}
    </section>
  );
}
