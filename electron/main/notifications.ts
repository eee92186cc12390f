// Native notifications for what needs the person: an upstream link went missing, or a notice
// was queued to an agent's main session. Agents can produce bursts (a sweep re-queues dozens of
// notices at once), so items are coalesced: a burst becomes one notification. Pure: the clock
// and the timer are injected, the glue in notify.ts shows the result with Electron.
import { isMainKey } from '../../shared/session-keys';
import type { GatewayEvent } from '../gateway/types';

export type NotificationItem =
  | { kind: 'upstream_missing'; sessionKey: string; summary: string }
  | { kind: 'notice'; sessionKey: string; text: string };

/** Which gateway events deserve a native notification. */
export function notificationItemFor(event: GatewayEvent): NotificationItem | undefined {
  if (event.type === 'state:event' && event.event.kind === 'upstream_missing') {
    return { kind: 'upstream_missing', sessionKey: event.sessionKey, summary: event.event.summary };
  }
  if (event.type === 'notice:queued' && isMainKey(event.sessionKey)) {
    return { kind: 'notice', sessionKey: event.sessionKey, text: event.entry.text };
  }
  return undefined;
}

export interface NotificationContent {
  title: string;
  body: string;
  /** The session to focus when the person clicks the notification (when there is one). */
  sessionKey?: string;
}

const BODY_LIMIT = 200;

function clip(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > BODY_LIMIT ? `${oneLine.slice(0, BODY_LIMIT - 1)}…` : oneLine;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** One notification for a coalesced batch (never empty). */
export function summarize(items: readonly NotificationItem[]): NotificationContent {
  const missing = items.filter((i) => i.kind === 'upstream_missing');
  const notices = items.filter((i) => i.kind === 'notice');
  const sessions = new Set(items.map((i) => i.sessionKey));
  const only = items.length === 1 ? items[0] : undefined;
  if (only?.kind === 'upstream_missing') {
    return {
      title: 'Upstream link missing',
      body: clip(`${only.sessionKey}: ${only.summary}`),
      sessionKey: only.sessionKey,
    };
  }
  if (only?.kind === 'notice') {
    return { title: `Notice for ${only.sessionKey}`, body: clip(only.text), sessionKey: only.sessionKey };
  }
  const parts: string[] = [];
  if (missing.length > 0) parts.push(plural(missing.length, 'upstream link') + ' missing');
  if (notices.length > 0) parts.push(plural(notices.length, 'notice') + ' queued');
  const [firstSession] = sessions;
  return {
    title: missing.length > 0 ? 'Sightline: upstream links missing' : 'Sightline: new notices',
    body: `${parts.join(', ')} across ${plural(sessions.size, 'session')}`,
    ...(sessions.size === 1 && firstSession !== undefined ? { sessionKey: firstSession } : {}),
  };
}

export interface CoalescerClock {
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

export interface CoalescerOptions {
  /** A batch is shown once no item arrived for this long (the end of the burst). */
  quietMs: number;
  /** …but never later than this after its first item, so a steady trickle still notifies. */
  maxWaitMs: number;
  clock: CoalescerClock;
  show(content: NotificationContent): void;
}

export interface NotificationCoalescer {
  add(item: NotificationItem): void;
  /** Shows what is pending now (used at shutdown: drop nothing silently, wait for nothing). */
  flush(): void;
  /** Drops pending items and the timer. */
  dispose(): void;
}

export const DEFAULT_QUIET_MS = 1500;
export const DEFAULT_MAX_WAIT_MS = 10_000;

export function createNotificationCoalescer(opts: CoalescerOptions): NotificationCoalescer {
  let pending: NotificationItem[] = [];
  let firstAt = 0;
  let timer: unknown;
  let disposed = false;

  const clearTimer = (): void => {
    if (timer !== undefined) opts.clock.clearTimer(timer);
    timer = undefined;
  };

  const flush = (): void => {
    clearTimer();
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    opts.show(summarize(batch));
  };

  const arm = (): void => {
    clearTimer();
    const untilMax = firstAt + opts.maxWaitMs - opts.clock.now();
    const delay = Math.max(0, Math.min(opts.quietMs, untilMax));
    timer = opts.clock.setTimer(flush, delay);
  };

  return {
    add(item) {
      if (disposed) return;
      if (pending.length === 0) firstAt = opts.clock.now();
      pending.push(item);
      arm();
    },
    flush,
    dispose() {
      disposed = true;
      clearTimer();
      pending = [];
    },
  };
}
