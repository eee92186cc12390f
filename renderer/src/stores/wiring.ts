// Pushed gateway events → stores, applied in batches at most once per animation frame.
import type { GatewayEvent } from '../../../shared/ipc';
import { onReconnect, releaseHeldPushes, subscribe } from '../lib/api';
import { useCatalog } from './catalog';
import { useConsent } from './consent';
import { useFleet } from './fleet';
import { useInbox } from './inbox';
import { useNodes } from './nodes';
import { usePermissions } from './permissions';
import { useTranscript } from './transcript';
import { useLive } from './live';
import { useUi } from './ui';
import { useTimeline } from './timeline';
import { useWatchers } from './watchers';

export function applyAll(events: GatewayEvent[]): void {
  // The Electron shell's notification click: open that session.
  for (const e of events) if (e.type === 'ui:open') useUi.getState().openSession(e.sessionKey, 'transcript');
  useFleet.getState().applyEvents(events);
  useLive.getState().applyEvents(events);
  useTranscript.getState().applyEvents(events);
  useTimeline.getState().applyEvents(events);
  useWatchers.getState().applyEvents(events);
  useInbox.getState().applyEvents(events);
  usePermissions.getState().applyEvents(events);
  useCatalog.getState().applyEvents(events);
  useNodes.getState().applyEvents(events);
  useConsent.getState().applyEvents(events);
}

/** Re-read everything that is open (after a reconnect). */
export async function reloadAll(): Promise<void> {
  await Promise.all([
    useFleet.getState().load(),
    useInbox.getState().load(),
    usePermissions.getState().load(),
    useConsent.getState().load(),
  ]);
  const key = useTranscript.getState().key;
  if (key) {
    await Promise.all([
      useTranscript.getState().open(key),
      useTimeline.getState().open(key),
      useWatchers.getState().open(key),
    ]);
  }
}

export function startLive(): () => void {
  let pending: GatewayEvent[] = [];
  let frame: number | undefined;
  const flush = () => {
    frame = undefined;
    const events = pending;
    pending = [];
    if (events.length) applyAll(events);
  };
  const off = subscribe((batch) => {
    pending.push(...batch.events);
    frame ??= requestAnimationFrame(flush);
  });
  // What was pushed since boot asked for the fleet comes first.
  const held = releaseHeldPushes();
  if (held.overflowed) void reloadAll();
  for (const batch of held.batches) pending.push(...batch.events);
  if (pending.length) frame ??= requestAnimationFrame(flush);
  const offReconnect = onReconnect(() => void reloadAll());
  return () => {
    off();
    offReconnect();
    if (frame !== undefined) cancelAnimationFrame(frame);
  };
}
