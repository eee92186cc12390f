// When Sightline notifies the person (issue 17.4), decided once for both hosts: Electron's main
// process shows the result natively, browser mode through the Notification API. A notification
// is due when a session starts waiting for the person, a run fails, a long run finishes (each
// as the person chose in Settings) or an adopted session's upstream disappears. One per session
// per 60 s; none for the session the person is looking at. Pure: the clock is injected.
import type { GatewayEvent, NotificationPreferences, SessionStatus } from './ipc/types';
import { visible } from './visible';

/** At most one notification per session within this window. */
export const NOTIFY_WINDOW_MS = 60_000;

export type NotificationReason = 'waiting' | 'failed' | 'finished' | 'upstream_missing';

export interface NotificationContent {
  reason: NotificationReason;
  /** The session a click opens. */
  sessionKey: string;
  title: string;
  body: string;
}

export interface NotificationPolicyDeps {
  now(): number;
  prefs(): NotificationPreferences;
  /** The session on the person's screen (in a visible, focused window), if any. */
  viewing(): string | undefined;
  /** How the person names a session (its label, else its key). */
  label(sessionKey: string): string;
}

const BODY_CHARS = 180;
const clip = (s: string) => {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > BODY_CHARS ? `${line.slice(0, BODY_CHARS - 1)}…` : line;
};

function minutes(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 120 ? `${s} s` : `${Math.round(s / 60)} min`;
}

export function createNotificationPolicy(deps: NotificationPolicyDeps) {
  const lastShown = new Map<string, number>();
  const lastStatus = new Map<string, SessionStatus>();

  const candidate = (e: GatewayEvent): NotificationContent | undefined => {
    const prefs = deps.prefs();
    switch (e.type) {
      case 'session:status': {
        const before = lastStatus.get(e.sessionKey);
        lastStatus.set(e.sessionKey, e.status.status);
        if (before === e.status.status) return undefined;
        const name = deps.label(e.sessionKey);
        if (e.status.status === 'waiting' && prefs.waiting)
          return {
            reason: 'waiting',
            sessionKey: e.sessionKey,
            title: `${name} is waiting for you`,
            body: clip(e.status.reason ?? 'It needs your answer.'),
          };
        if (e.status.status === 'failed' && prefs.failed)
          return {
            reason: 'failed',
            sessionKey: e.sessionKey,
            title: `${name}: the run failed`,
            body: clip(e.status.reason ?? 'The run failed.'),
          };
        return undefined;
      }
      case 'run:changed': {
        const r = e.run;
        if (!prefs.finished || r.status !== 'idle' || r.endedAt === undefined) return undefined;
        const took = r.endedAt - r.startedAt;
        if (took < prefs.longRunSeconds * 1000) return undefined;
        return {
          reason: 'finished',
          sessionKey: r.sessionKey,
          title: `${deps.label(r.sessionKey)} finished`,
          body: `The run took ${minutes(took)}.`,
        };
      }
      case 'state:event':
        if (e.event.kind !== 'upstream_missing' || !prefs.upstreamMissing) return undefined;
        return {
          reason: 'upstream_missing',
          sessionKey: e.sessionKey,
          title: `${deps.label(e.sessionKey)}: upstream missing`,
          body: clip(`${e.event.summary}; the upstream link was removed.`),
        };
      case 'session:deleted':
        lastShown.delete(e.sessionKey);
        lastStatus.delete(e.sessionKey);
        return undefined;
      default:
        return undefined;
    }
  };

  return {
    /** The notifications these pushed events call for, in order (often none). */
    decide(events: GatewayEvent[]): NotificationContent[] {
      const out: NotificationContent[] = [];
      for (const e of events) {
        const n = candidate(e);
        if (!n || deps.viewing() === n.sessionKey) continue;
        const at = deps.now();
        const last = lastShown.get(n.sessionKey);
        if (last !== undefined && at - last < NOTIFY_WINDOW_MS) continue;
        lastShown.set(n.sessionKey, at);
        // Labels and reasons come from agents and files: shown with hidden characters visible.
        out.push({ ...n, title: visible(n.title), body: visible(n.body) });
      }
      return out;
    },
  };
}

/** The window title counts what waits for the person; Electron's dock/taskbar badge reads it back. */
export function windowTitle(waiting: number): string {
  return waiting > 0 ? `(${waiting}) Sightline — ${waiting} waiting for you` : 'Sightline';
}

export function waitingFromTitle(title: string): number {
  const m = /^\((\d{1,6})\) Sightline\b/.exec(title);
  return m ? Number(m[1]) : 0;
}
