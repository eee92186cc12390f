// Notifications in browser mode (issue 17.4): the shared policy, shown with the Notification API
// once the person allowed it (Settings → Notifications). In Electron the main process shows them
// natively from the same policy; the page only reports which session is on screen.
import { createNotificationPolicy } from '../../../shared/notification-policy';
import { sessionTitle } from '../lib/format';
import { call, subscribe } from '../lib/api';
import { useFleet } from './fleet';
import { usePreferences } from './preferences';
import { useUi } from './ui';

/** The session the person is looking at: open, in a visible and focused page. */
export function viewingNow(): string | undefined {
  const ui = useUi.getState();
  if (ui.view !== 'session' || !ui.selectedKey) return undefined;
  return document.visibilityState === 'visible' && document.hasFocus() ? ui.selectedKey : undefined;
}

export function notificationsSupported(): boolean {
  return typeof window.Notification === 'function';
}

/** Starts showing notifications (browser mode) and reporting the session on screen; returns stop. */
export function startNotifications(mode: 'electron' | 'web'): () => void {
  let reported: string | undefined | null = null;
  const report = () => {
    const now = viewingNow();
    if (now === reported) return;
    reported = now;
    void call('ui:viewing', now ? { sessionKey: now } : {}).catch(() => {});
  };
  const offUi = useUi.subscribe(report);
  window.addEventListener('focus', report);
  window.addEventListener('blur', report);
  document.addEventListener('visibilitychange', report);
  report();

  let offPush = () => {};
  if (mode === 'web' && notificationsSupported()) {
    const policy = createNotificationPolicy({
      now: Date.now,
      prefs: () => usePreferences.getState().prefs.notifications,
      viewing: viewingNow,
      label: (key) => {
        const s = useFleet.getState().sessions[key];
        return s ? sessionTitle(s) : key;
      },
    });
    offPush = subscribe((batch) => {
      const due = policy.decide(batch.events);
      if (due.length === 0 || Notification.permission !== 'granted') return;
      for (const n of due) {
        const note = new Notification(n.title, { body: n.body, tag: `sightline:${n.sessionKey}` });
        note.onclick = () => {
          window.focus();
          useUi.getState().openSession(n.sessionKey, 'transcript');
          note.close();
        };
      }
    });
  }
  return () => {
    offUi();
    offPush();
    window.removeEventListener('focus', report);
    window.removeEventListener('blur', report);
    document.removeEventListener('visibilitychange', report);
  };
}
