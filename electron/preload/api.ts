// The `window.sightline` object, built from an ipcRenderer-like transport so it is testable under
// plain Node. The page gets exactly two functions: it never sees ipcRenderer, and listeners get
// the push batch only, never the IPC event (whose `sender` would be ipcRenderer itself).
import { PUSH_CHANNEL, isChannel } from '../../shared/ipc/channels';
import type { Envelope, PushListener, SightlineApi } from '../../shared/ipc/contract';
import type { PushBatch } from '../../shared/ipc/types';

export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

function isPushBatch(value: unknown): value is PushBatch {
  return typeof value === 'object' && value !== null && Array.isArray((value as { events?: unknown }).events);
}

export function createSightlineApi(ipc: IpcRendererLike): SightlineApi {
  const invoke = async (channel: string, args: unknown): Promise<Envelope<unknown>> => {
    // Checked here too so a typo fails with the contract's envelope instead of Electron's
    // "No handler registered" rejection.
    if (!isChannel(channel)) {
      return {
        ok: false,
        error: { code: 'unknown_channel', message: `Unknown channel: ${String(channel).slice(0, 100)}` },
      };
    }
    try {
      return (await ipc.invoke(channel, args)) as Envelope<unknown>;
    } catch {
      return { ok: false, error: { code: 'unavailable', message: 'the main process did not answer' } };
    }
  };

  const subscribe = (listener: PushListener): (() => void) => {
    if (typeof listener !== 'function') throw new TypeError('subscribe expects a function');
    const onPush = (_event: unknown, batch: unknown): void => {
      if (isPushBatch(batch)) listener(batch);
    };
    ipc.on(PUSH_CHANNEL, onPush);
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      ipc.removeListener(PUSH_CHANNEL, onPush);
    };
  };

  return Object.freeze({ invoke, subscribe }) as SightlineApi;
}
