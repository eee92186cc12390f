// An agent's message into a session whose agent acts in the world (an adopted CLI, an ACP coding
// agent) waits for the person's yes: a permission request in the inbox, withdrawn when the
// agent's call is aborted. Declined → `declined by the person`.
import { GatewayError } from '../errors';
import { DECLINED } from '../trust/consent';
import { nextPermissionId, type Permissions } from './permissions';

const SEND_OPTIONS = [
  { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
  { optionId: 'decline', name: 'Decline', kind: 'reject_once' },
];
const PREVIEW_CHARS = 300;

/** `what`: what the send does, in the question ("runs the claude CLI"). */
export type AskToSend = (
  key: string,
  text: string,
  agent: string,
  what: string,
  signal?: AbortSignal,
) => Promise<void>;

export function createAskToSend(permissions: Permissions): AskToSend {
  return async (key, text, agent, what, signal) => {
    const id = nextPermissionId('send');
    const withdraw = () => permissions.withdraw(id);
    signal?.addEventListener('abort', withdraw, { once: true });
    const preview = text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text;
    try {
      const asked = permissions.ask({
        id,
        sessionKey: key,
        requestedBy: agent,
        title: `${agent} wants to send a message into this session (${what}): "${preview}"`,
        options: SEND_OPTIONS,
      });
      if (signal?.aborted) withdraw();
      const answer = await asked;
      if (!answer?.kind.startsWith('allow')) throw new GatewayError('forbidden', DECLINED);
    } finally {
      signal?.removeEventListener('abort', withdraw);
    }
  };
}
