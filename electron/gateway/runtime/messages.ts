// Where a message to a session goes. Adopted sessions get it upstream (the catalog's CLI
// continuation), ACP children as a prompt; a native session takes it into its transcript and
// starts its turn. The person's composer (human.send) and an agent's sessions_send both come here.
// A session another gateway runs is refused before anything is written (that gateway runs its
// turns; one sharing the database never answers for it).
import { parseSessionKey } from '../../../shared/session-keys';
import type { Transactions } from '../db/transactions';
import { NotOwnerError } from '../ownership';
import type { TranscriptStore } from '../sessions/transcripts';
import type { GatewayEvent } from '../types';
import type { AcpSessions } from './acp/sessions';
import type { TurnEngine } from './turns';

export interface Sender {
  type: 'agent' | 'human';
  id: string;
}

export interface MessagesDeps {
  tx: Transactions;
  emit: (e: GatewayEvent) => void;
  transcripts: TranscriptStore;
  engine: TurnEngine;
  acp: Pick<AcpSessions, 'deliver'>;
  /** The catalog's continuation of an adopted session upstream. */
  continueUpstream: (sessionKey: string, text: string) => Promise<void>;
  /** Whether this gateway runs the session (ownership.owns). */
  owns: (sessionKey: string) => boolean;
}

export type Messages = ReturnType<typeof createMessages>;

export function createMessages(deps: MessagesDeps) {
  /** The channel of a session that is not native, after delivering there; undefined for native. */
  const external = async (key: string, text: string, from: Sender): Promise<string | undefined> => {
    const kind = parseSessionKey(key).kind;
    if (kind === 'adopted') {
      await deps.continueUpstream(key, text);
      return 'desktop';
    }
    if (kind === 'acp' && deps.acp.deliver(key, text, from)) return 'acp';
    return undefined;
  };

  return {
    /**
     * Delivers `text` from `from`. `alongside` runs in the same transaction as a native session's
     * transcript append (after an external delivery it runs alone), with the external channel.
     * Resolves with that channel, or undefined for a native session.
     */
    async deliver(
      key: string,
      text: string,
      from: Sender,
      alongside?: (externalChannel: string | undefined) => void,
    ): Promise<string | undefined> {
      if (!deps.owns(key)) throw new NotOwnerError(key);
      const channel = await external(key, text, from);
      deps.tx.run(() => {
        if (channel === undefined) {
          const m = deps.transcripts.append(key, {
            role: 'user',
            actorType: from.type,
            actorId: from.id,
            text,
          });
          deps.emit({ type: 'transcript:appended', message: m });
        }
        alongside?.(channel);
      });
      if (channel === undefined) void deps.engine.enqueue(key, { kind: 'user' });
      return channel;
    },
  };
}
