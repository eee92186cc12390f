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
    const batch: PushBatch = { events: coalesceDeltas(buffer) };
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

/**
 * Live output arrives token by token (100 sessions × 20 tokens/s): within one push, the deltas of
 * one session's stream are joined into one event, at the place of the first. Order is kept per
 * session: another event of the same session ends the run of deltas that can be joined. Tool
 * starts are never joined (each names its tool).
 */
export function coalesceDeltas(events: GatewayEvent[]): GatewayEvent[] {
  const out: GatewayEvent[] = [];
  const open = new Map<string, number>(); // `${session}\n${run}\n${stream}` -> index in out
  const bySession = new Map<string, Set<string>>();
  for (const e of events) {
    if (e.type !== 'run:delta' || e.stream === 'tool') {
      const key = sessionOf(e);
      if (key !== undefined) for (const k of bySession.get(key) ?? []) open.delete(k);
      out.push(e);
      continue;
    }
    const k = `${e.sessionKey}\n${e.runId}\n${e.stream}`;
    const at = open.get(k);
    const prev = at === undefined ? undefined : out[at];
    if (prev?.type === 'run:delta') {
      out[at!] = { ...prev, text: prev.text + e.text };
      continue;
    }
    open.set(k, out.length);
    let keys = bySession.get(e.sessionKey);
    if (!keys) bySession.set(e.sessionKey, (keys = new Set()));
    keys.add(k);
    out.push(e);
  }
  return out;
}

function sessionOf(e: GatewayEvent): string | undefined {
  switch (e.type) {
    case 'transcript:appended':
      return e.message.sessionKey;
    case 'run:changed':
      return e.run.sessionKey;
    case 'session:status':
    case 'session:deleted':
    case 'session:changed':
      return e.sessionKey;
    default:
      return undefined;
  }
}
