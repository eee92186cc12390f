// Gateway events → pushes. What one turn of the event loop produced (a read from an agent, one
// transaction, one timer) goes out together at the end of that turn, so an update never waits for
// a timer: the agents benchmark measured the former 16 ms window as the largest part Sightline
// added between an agent's update and the screen. Pacing to the screen is the renderer's: it
// applies what arrived once per animation frame (renderer/src/stores/wiring.ts), so its work stays
// one pass a frame however many batches arrive.
import type { GatewayEvent } from '../types';
import type { PushBatch } from '../../../shared/ipc/types';
import type { GatewayApi } from './gateway-api';

export interface PushBridge {
  /** Send what is buffered now. */
  flush(): void;
  close(): void;
}

export function createPushBridge(events: GatewayApi['events'], send: (batch: PushBatch) => void): PushBridge {
  let buffer: GatewayEvent[] = [];
  let pending: ReturnType<typeof setImmediate> | undefined;
  let closed = false;

  const flush = () => {
    if (pending) clearImmediate(pending);
    pending = undefined;
    if (buffer.length === 0 || closed) return;
    const batch: PushBatch = { events: coalesceDeltas(buffer) };
    buffer = [];
    try {
      send(batch);
    } catch {
      // A closed transport drops the batch; the renderer re-reads state when it reconnects.
    }
  };

  const off = events.on((event) => {
    if (closed) return;
    buffer.push(event);
    pending ??= setImmediate(flush);
  });

  return {
    flush,
    close() {
      closed = true;
      off();
      if (pending) clearImmediate(pending);
      pending = undefined;
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
