import { describe, expect, it } from 'vitest';
import { createSightlineApi, type IpcRendererLike } from '../../electron/preload/api';
import type { PushBatch } from '../../shared/ipc';

type Listener = (event: unknown, ...args: unknown[]) => void;

class FakeIpcRenderer implements IpcRendererLike {
  readonly calls: unknown[][] = [];
  readonly listeners = new Map<string, Set<Listener>>();
  reply: unknown = { ok: true, value: 'pong' };
  invoke(channel: string, ...args: unknown[]): Promise<unknown> {
    this.calls.push([channel, ...args]);
    return this.reply instanceof Error ? Promise.reject(this.reply) : Promise.resolve(this.reply);
  }
  on(channel: string, listener: Listener): this {
    if (!this.listeners.has(channel)) this.listeners.set(channel, new Set());
    this.listeners.get(channel)!.add(listener);
    return this;
  }
  removeListener(channel: string, listener: Listener): this {
    this.listeners.get(channel)?.delete(listener);
    return this;
  }
  emit(channel: string, ...args: unknown[]): void {
    const event = { sender: this, senderId: 0, ports: [] };
    for (const l of this.listeners.get(channel) ?? []) l(event, ...args);
  }
}

const batch: PushBatch = { events: [{ type: 'catalog:changed' }] };

describe('window.sightline (preload api)', () => {
  it('exposes exactly invoke and subscribe, frozen', () => {
    const api = createSightlineApi(new FakeIpcRenderer());
    expect(Object.keys(api).sort()).toEqual(['invoke', 'subscribe']);
    expect(Object.isFrozen(api)).toBe(true);
  });

  it('invoke passes channel and one argument object and returns the envelope', async () => {
    const ipc = new FakeIpcRenderer();
    const api = createSightlineApi(ipc);
    expect(await api.invoke('sessions:get', { sessionKey: 'agent:a:main' })).toEqual({
      ok: true,
      value: 'pong',
    });
    expect(ipc.calls).toEqual([['sessions:get', { sessionKey: 'agent:a:main' }]]);
  });

  it('refuses unknown channels without touching IPC', async () => {
    const ipc = new FakeIpcRenderer();
    const api = createSightlineApi(ipc);
    const invoke = api.invoke as (channel: string, args: unknown) => Promise<unknown>;
    expect(await invoke('shell:exec', {})).toEqual({
      ok: false,
      error: { code: 'unknown_channel', message: 'Unknown channel: shell:exec' },
    });
    expect(ipc.calls).toEqual([]);
  });

  it('turns a rejected invoke into an unavailable envelope (no raw error to the page)', async () => {
    const ipc = new FakeIpcRenderer();
    ipc.reply = new Error("Error invoking remote method 'app:info': boom");
    const api = createSightlineApi(ipc);
    expect(await api.invoke('app:info', {})).toEqual({
      ok: false,
      error: { code: 'unavailable', message: 'the main process did not answer' },
    });
  });

  it('gives listeners the batch only, never the IPC event, and unsubscribes once', () => {
    const ipc = new FakeIpcRenderer();
    const api = createSightlineApi(ipc);
    const received: unknown[][] = [];
    const unsubscribe = api.subscribe((...args: unknown[]) => received.push(args));
    ipc.emit('push:events', batch);
    ipc.emit('push:events', 'not a batch');
    expect(received).toEqual([[batch]]);
    unsubscribe();
    unsubscribe();
    ipc.emit('push:events', batch);
    expect(received).toHaveLength(1);
    expect(ipc.listeners.get('push:events')?.size).toBe(0);
  });

  it('rejects a non-function listener', () => {
    const api = createSightlineApi(new FakeIpcRenderer());
    expect(() => api.subscribe('x' as unknown as () => void)).toThrow('subscribe expects a function');
  });
});
