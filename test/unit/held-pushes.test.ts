// The page asks for the fleet at boot, before the app's code has run and subscribed to pushes
// (issue 31.4). Pushes in between are held for the app, oldest first; past the bound they are
// dropped and the app is told to read everything again.
import { describe, expect, it } from 'vitest';
import type { PushBatch, PushListener, SightlineApi } from '../../shared/ipc';

const listeners = new Set<PushListener>();
const push = (n: number): PushBatch => ({
  events: [{ type: 'session:status', sessionKey: `agent:main:s${n}`, status: { status: 'idle', since: n } }],
});
const transport = {
  invoke: () => Promise.reject(new Error('not used')),
  subscribe(l: PushListener) {
    listeners.add(l);
    return () => listeners.delete(l);
  },
} as unknown as SightlineApi;
(globalThis as { window?: unknown }).window = { sightline: transport };
const { holdPushes, releaseHeldPushes, subscribe } = await import('../../renderer/src/lib/api');
const emit = (b: PushBatch) => listeners.forEach((l) => l(b));

describe('pushes before the app subscribes', () => {
  it('are held in order and handed over once; later ones go to the subscribers only', () => {
    holdPushes();
    emit(push(1));
    emit(push(2));
    const seen: PushBatch[] = [];
    subscribe((b) => seen.push(b));
    expect(releaseHeldPushes()).toEqual({ batches: [push(1), push(2)], overflowed: false });
    emit(push(3));
    expect(seen).toEqual([push(3)]);
    expect(releaseHeldPushes()).toEqual({ batches: [], overflowed: false });
    expect(listeners.size).toBe(1); // the holding listener is gone
  });

  it('drops them past 1,000 batches and says so', () => {
    holdPushes();
    for (let i = 0; i < 1001; i++) emit(push(i));
    expect(releaseHeldPushes()).toEqual({ batches: [], overflowed: true });
  });
});
