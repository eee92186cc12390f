// Typed errors thrown by the gateway's services. The code is one of the IPC contract's error
// codes, so every transport (Electron IPC, browser mode's WebSocket) maps a failure the same way,
// by its type and never by matching its message.
import type { ErrorCode } from '../../shared/ipc/contract';

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
