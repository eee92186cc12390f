// Typed errors thrown by the gateway's services. The code is one of the IPC contract's error
// codes, so every transport (Electron IPC, browser mode's WebSocket) maps a failure the same way,
// by its type and never by matching its message.
import type { ErrorCode, IpcError } from '../../shared/ipc/contract';

export class GatewayError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}

/** The session (or thread, agent, request) asked for does not exist. */
export const notFound = (message: string) => new GatewayError('not_found', message);

/** The caller's input is wrong in a way its schema could not see. */
export const invalidArgument = (message: string) => new GatewayError('invalid_argument', message);

const MESSAGE_LIMIT = 1_000;

/**
 * The one mapping from anything thrown to the contract's error, used by the API's dispatch and by
 * Electron's IPC wrapper alike: a GatewayError keeps its code (by type, never a duck-typed `code`
 * such as Node's ENOENT); anything else is `internal`. Only the message crosses, clipped: never
 * the stack, never the error object.
 */
export function toIpcError(err: unknown): IpcError {
  const raw = err instanceof Error ? err.message : typeof err === 'string' ? err : '';
  const message = raw.slice(0, MESSAGE_LIMIT) || 'internal error';
  if (err instanceof GatewayError) return { code: err.code, message };
  return { code: 'internal', message };
}
