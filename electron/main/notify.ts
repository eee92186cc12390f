// Shows the notifications the shared policy decides (issue 17.4) with Electron's native
// Notification; a click brings the window forward and opens the session. Only wiring: what to
// show and when is shared/notification-policy.ts (browser mode runs the same policy in the page).
import { Notification } from 'electron';
import { createNotificationPolicy, type NotificationPolicyDeps } from '../../shared/notification-policy';
import type { GatewayEvents } from '../gateway/types';

export interface NativeNotifier {
  close(): void;
}

export function startNativeNotifications(
  events: GatewayEvents,
  deps: Omit<NotificationPolicyDeps, 'now'>,
  onClick: (sessionKey: string) => void,
): NativeNotifier {
  // Notifications are garbage-collected (and lose their click handler) unless referenced.
  const live = new Set<Notification>();
  const policy = createNotificationPolicy({ now: Date.now, ...deps });
  const off = events.on((event) => {
    for (const n of policy.decide([event])) {
      if (!Notification.isSupported()) return;
      const note = new Notification({ title: n.title, body: n.body });
      live.add(note);
      note.on('click', () => onClick(n.sessionKey));
      note.on('close', () => live.delete(note));
      note.show();
    }
  });
  return {
    close() {
      off();
      live.clear();
    },
  };
}
