// The one wrapper every ipcMain handler goes through. It checks the sender frame, then hands the
// raw arguments to the contract's dispatch (electron/gateway/api/handlers.ts), which parses them
// with the channel's zod schema and returns the result envelope. Anything thrown on the way is
// caught here too and mapped by the gateway's one toIpcError, so no raw error (or stack) ever
// crosses to the renderer. Pure: ipcMain is passed in (Electron's satisfies IpcMainLike), so
// tests use a fake.
import { CHANNEL_LIST } from '../../shared/ipc';
import type { Channel, Envelope, IpcError } from '../../shared/ipc';
import { toIpcError } from '../gateway/errors';

/** The part of Electron's IpcMainInvokeEvent the wrapper reads. */
export interface InvokeEventLike {
  sender: { id: number };
  senderFrame: { url: string; parent: unknown } | null;
}

export interface IpcMainLike<E extends InvokeEventLike = InvokeEventLike> {
  handle(channel: string, listener: (event: E, ...args: unknown[]) => Promise<unknown>): void;
  removeHandler(channel: string): void;
}

/** Parse, call, envelope: `createApiHandlers(gateway).dispatch`. */
export type Dispatch = (channel: Channel, rawArgs: unknown) => Promise<Envelope<unknown>>;

export interface RegisterOptions<E extends InvokeEventLike> {
  dispatch: Dispatch;
  isTrustedSender(event: E): boolean;
  /** Told about refused senders and internal errors (never about arguments or values). */
  onProblem?(channel: Channel, error: IpcError): void;
  channels?: readonly Channel[];
}

/**
 * Registers one handler per contract channel on `ipcMain` and returns a function that removes
 * them again (used at shutdown and in tests). Unknown channels get no handler at all, so
 * Electron rejects them before any of our code runs.
 */
export function registerIpcHandlers<E extends InvokeEventLike>(
  ipcMain: IpcMainLike<E>,
  opts: RegisterOptions<E>,
): () => void {
  const channels = opts.channels ?? CHANNEL_LIST;
  for (const channel of channels) {
    ipcMain.handle(channel, (event, ...args) => handleOne(channel, event, args, opts));
  }
  return () => {
    for (const channel of channels) ipcMain.removeHandler(channel);
  };
}

async function handleOne<E extends InvokeEventLike>(
  channel: Channel,
  event: E,
  args: unknown[],
  opts: RegisterOptions<E>,
): Promise<Envelope<unknown>> {
  let result: Envelope<unknown>;
  try {
    if (!opts.isTrustedSender(event)) {
      result = { ok: false, error: { code: 'forbidden', message: 'sender is not the Sightline window' } };
    } else if (args.length > 1) {
      result = { ok: false, error: { code: 'invalid_argument', message: 'expected one argument object' } };
    } else {
      result = await opts.dispatch(channel, args[0]);
    }
  } catch (err) {
    result = { ok: false, error: toIpcError(err) };
  }
  if (!result.ok && (result.error.code === 'forbidden' || result.error.code === 'internal')) {
    opts.onProblem?.(channel, result.error);
  }
  return result;
}
