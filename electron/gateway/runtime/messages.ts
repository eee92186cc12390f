// Where a message to a session goes. Adopted sessions get it upstream (the catalog's CLI
// continuation), ACP children as a prompt; a native session takes it into its transcript and
// starts its turn. The person's composer (human.send) and an agent's sessions_send both come here.
// An agent's message into an adopted session runs the upstream CLI for it, so it waits for the
// person's yes (a permission request in the inbox); the person's own send needs none.
// A session another gateway runs is refused before anything is written (that gateway runs its
// turns; one sharing the database never answers for it).
import { parseSessionKey } from '../../../shared/session-keys';
import type { Transactions } from '../db/transactions';
import { GatewayError, invalidArgument } from '../errors';
import { NotOwnerError } from '../ownership';
import { DECLINED } from '../trust/consent';
import type { TranscriptStore } from '../sessions/transcripts';
import type { GatewayEvent } from '../types';
import type { AcpSessions } from './acp/sessions';
import { nextPermissionId, type Permissions } from './permissions';
import type { TurnEngine } from './turns';

const SEND_OPTIONS = [
  { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
  { optionId: 'decline', name: 'Decline', kind: 'reject_once' },
];
const PREVIEW_CHARS = 300;

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
  permissions: Permissions;
  /** The catalog's continuation of an adopted session upstream. */
  continueUpstream: (sessionKey: string, text: string) => Promise<void>;
  /** Whether this gateway runs the session (ownership.owns). */
  owns: (sessionKey: string) => boolean;
}

export type Messages = ReturnType<typeof createMessages>;

export function createMessages(deps: MessagesDeps) {
  /** The channel of a session that is not native, after delivering there; undefined for native. */
  /** Resolves when the person allowed the agent's send; throws `declined by the person` otherwise. */
  const askToSend = async (key: string, text: string, agent: string, signal?: AbortSignal) => {
    const id = nextPermissionId('send');
    const withdraw = () => deps.permissions.withdraw(id);
    signal?.addEventListener('abort', withdraw, { once: true });
    const tool = parseSessionKey(key).rest.split(':')[1] ?? 'upstream';
    const preview = text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text;
    try {
      const asked = deps.permissions.ask({
        id,
        sessionKey: key,
        requestedBy: agent,
        title: `${agent} wants to send a message into this session (runs the ${tool} CLI): "${preview}"`,
        options: SEND_OPTIONS,
      });
      if (signal?.aborted) withdraw();
      const answer = await asked;
      if (!answer?.kind.startsWith('allow')) throw new GatewayError('forbidden', DECLINED);
    } finally {
      signal?.removeEventListener('abort', withdraw);
    }
  };

  const external = async (
    key: string,
    text: string,
    from: Sender,
    signal?: AbortSignal,
  ): Promise<string | undefined> => {
    const kind = parseSessionKey(key).kind;
    if (kind === 'external') {
      // Its agent runs in a person's terminal and talks to Sightline only through MCP.
      throw invalidArgument(`${key} is run by an agent outside Sightline; Sightline cannot send it messages`);
    }
    if (kind === 'adopted') {
      if (from.type === 'agent') await askToSend(key, text, from.id, signal);
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
      opts: { signal?: AbortSignal } = {},
    ): Promise<string | undefined> {
      if (!deps.owns(key)) throw new NotOwnerError(key);
      const channel = await external(key, text, from, opts.signal);
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
