// Where a message to a session goes: to the session's runner (native turns, an ACP agent, an
// adopted session's upstream CLI), which says how it is written and what turn answers it. The
// person's composer (human.send) and an agent's sessions_send both come here.
// A session another gateway runs is refused before anything is written (that gateway runs its
// turns; one sharing the database never answers for it).
import type { Transactions } from '../db/transactions';
import { invalidArgument } from '../errors';
import { NotOwnerError } from '../ownership';
import type { Runners, Sender } from './runner';

export type { Sender };

export interface MessagesDeps {
  tx: Transactions;
  runners: Pick<Runners, 'of'>;
  /** Whether this gateway runs the session (ownership.owns). */
  owns: (sessionKey: string) => boolean;
}

export type Messages = ReturnType<typeof createMessages>;

export function createMessages(deps: MessagesDeps) {
  return {
    /**
     * Delivers `text` from `from`. `alongside` runs in the same transaction as the message's
     * transcript line, with the channel the runner names (undefined for native turns). Resolves
     * with that channel.
     */
    async deliver(
      key: string,
      text: string,
      from: Sender,
      alongside?: (externalChannel: string | undefined) => void,
      opts: { signal?: AbortSignal } = {},
    ): Promise<string | undefined> {
      if (!deps.owns(key)) throw new NotOwnerError(key);
      const runner = deps.runners.of(key);
      if (!runner) throw invalidArgument(`Nothing in this gateway runs ${key}`);
      const delivery = await runner.deliver(key, text, from, opts.signal);
      deps.tx.run(() => {
        delivery.write?.();
        alongside?.(delivery.channel);
      });
      delivery.start?.();
      return delivery.channel;
    },
  };
}
