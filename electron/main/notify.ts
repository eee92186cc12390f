// Shows coalesced notifications with Electron's Notification. Only wiring: what to show and
// when is decided in notifications.ts.
import { Notification } from 'electron';
import type { GatewayEvents } from '../gateway/types';
import {
  DEFAULT_MAX_WAIT_MS,
  DEFAULT_QUIET_MS,
  createNotificationCoalescer,
  notificationItemFor,
  type NotificationContent,
} from './notifications';

export interface NativeNotifier {
  close(): void;
}

export function startNativeNotifications(events: GatewayEvents, onClick: () => void): NativeNotifier {
  // Notifications are garbage-collected (and lose their click handler) unless referenced.
  const live = new Set<Notification>();
  const show = (content: NotificationContent): void => {
    if (!Notification.isSupported()) return;
    const n = new Notification({ title: content.title, body: content.body });
    live.add(n);
    n.on('click', onClick);
    n.on('close', () => live.delete(n));
    n.show();
  };
  const coalescer = createNotificationCoalescer({
    quietMs: DEFAULT_QUIET_MS,
    maxWaitMs: DEFAULT_MAX_WAIT_MS,
    clock: {
      now: Date.now,
      setTimer: (fn, ms) => setTimeout(fn, ms),
      clearTimer: (h) => clearTimeout(h as NodeJS.Timeout),
    },
    show,
  });
  const off = events.on((event) => {
    const item = notificationItemFor(event);
    if (item) coalescer.add(item);
  });
  return {
    close() {
      off();
      coalescer.dispose();
      live.clear();
    },
  };
}
