// The login terminal channels (issue 28.5): the session must exist; unknown terminal ids are
// refused by the service.
import type { LoginTerminalResults } from '../../../shared/ipc/login-terminals';
import { GatewayError } from '../errors';
import type { SessionInfo } from '../types';
import type { LoginTerminalsApi } from './gateway-api';
import type { Handler } from './handlers';

export function loginHandlers(
  /** Read at each call, like every other handler's façade (a gateway may lack it). */
  loginOf: () => LoginTerminalsApi | undefined,
  session: (rawKey: string) => SessionInfo,
): { [C in keyof LoginTerminalResults]: Handler<C> } {
  const terms = () => {
    const login = loginOf();
    if (!login) throw new GatewayError('unavailable', 'This gateway runs no login terminals');
    return login;
  };
  return {
    'acp:login:start': async ({ sessionKey, methodId, cols, rows }) =>
      terms().start(session(sessionKey).key, methodId, { cols, rows }),
    'acp:login:get': async ({ id }) => terms().get(id),
    'acp:login:input': async ({ id, data }) => {
      terms().input(id, data);
      return { sent: true };
    },
    'acp:login:resize': async ({ id, cols, rows }) => {
      await terms().resize(id, { cols, rows });
      return { resized: true };
    },
    'acp:login:close': async ({ id }) => {
      terms().close(id);
      return { closed: true };
    },
  };
}
