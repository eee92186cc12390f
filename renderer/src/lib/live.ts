// Pushed gateway events → stores, applied in batches at most once per animation frame.
import type { GatewayEvent } from '../../../shared/ipc';
import { onReconnect, subscribe } from './api';
import { useCatalog } from '../stores/catalog';
import { useConsent } from '../stores/consent';
import { useFleet } from '../stores/fleet';
import { useInbox } from '../stores/inbox';
import { useNodes } from '../stores/nodes';
import { usePermissions } from '../stores/permissions';
import { useTranscript } from '../stores/transcript';
import { useTimeline } from '../stores/timeline';
import { useWatchers } from '../stores/watchers';

export function applyAll(events: GatewayEvent[]): void {
  useFleet.getState().applyEvents(events);
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
  const offReconnect = onReconnect(() => void reloadAll());
  return () => {
    off();
    offReconnect();
    if (frame !== undefined) cancelAnimationFrame(frame);
  };
}
