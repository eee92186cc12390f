// Gateway events → batched pushes. Events of one window are sent together, in order, at most
// once every `intervalMs` (16 ms: about one animation frame).
import type { GatewayEvent } from '../types';
import type { PushBatch } from '../../../shared/ipc/types';
import type { GatewayApi } from './gateway-api';

export const PUSH_INTERVAL_MS = 16;

export interface PushBridge {
  /** Send what is buffered now. */
  flush(): void;
  close(): void;
}

export function createPushBridge(
  events: GatewayApi['events'],
  send: (batch: PushBatch) => void,
  opts: { intervalMs?: number; now?: () => number } = {},
): PushBridge {
  const interval = opts.intervalMs ?? PUSH_INTERVAL_MS;
  const now = opts.now ?? Date.now;
  let buffer: GatewayEvent[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastFlush = -Infinity;
  let closed = false;

  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (buffer.length === 0 || closed) return;
    const batch: PushBatch = { events: buffer };
    buffer = [];
    lastFlush = now();
    try {
      send(batch);
    } catch {
      // A closed transport drops the batch; the renderer re-reads state when it reconnects.
    }
  };

  const off = events.on((event) => {
    if (closed) return;
    buffer.push(event);
    if (!timer) timer = setTimeout(flush, Math.max(0, interval - (now() - lastFlush)));
  });

  return {
    flush,
    close() {
      closed = true;
      off();
      if (timer) clearTimeout(timer);
      timer = undefined;
      buffer = [];
    },
  };
}
