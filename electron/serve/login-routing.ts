// A login terminal on a shared gateway (issue 28.5 meets 30.2) is its starter's alone: what it
// prints can be a one-time code or a login link, and what is typed into it can be a secret. Only
// the person who started it sees its output and may type into it, resize, read or close it.
import type { Envelope } from '../../shared/ipc/contract';
import type { GatewayEvent } from '../gateway/types';
import type { Account } from './accounts';

const BY_ID = new Set(['acp:login:get', 'acp:login:input', 'acp:login:resize', 'acp:login:close']);

export function createLoginRouting() {
  const startedBy = new Map<string, string>();
  const mine = (a: Account, id: string) => startedBy.get(id) === a.id;
  return {
    /** Someone else's terminal is refused (an unknown id is the gateway's to refuse). */
    refuse(a: Account, channel: unknown, args: unknown): Envelope<unknown> | undefined {
      if (!BY_ID.has(String(channel))) return undefined;
      const id = (args as { id?: unknown } | undefined)?.id;
      if (typeof id !== 'string' || !startedBy.has(id) || mine(a, id)) return undefined;
      return { ok: false, error: { code: 'forbidden', message: 'this login terminal is someone else’s' } };
    },
    /** After a request succeeded: a new terminal is its starter's; a closed one is forgotten. */
    after(a: Account, channel: unknown, args: unknown, value: unknown): void {
      const started = (value as { id?: unknown } | undefined)?.id;
      if (channel === 'acp:login:start' && typeof started === 'string') startedBy.set(started, a.id);
      const closed = (args as { id?: unknown } | undefined)?.id;
      if (channel === 'acp:login:close' && typeof closed === 'string') startedBy.delete(closed);
    },
    /** Output and the end of a terminal reach its starter only. */
    visible: (a: Account, e: GatewayEvent): boolean =>
      (e.type !== 'login:output' && e.type !== 'login:exit') || mine(a, e.id),
  };
}
