// What the person does from the composer: `human.send` (contract). The message is delivered
// (transcript + turn for a native session, upstream or to the ACP agent otherwise) and
// `human_direct_message` is recorded in the same transaction under the spec's gate.
import type { SessionInfo } from '../../../shared/domain';
import type { SessionStore } from '../sessions/store';
import { oneLine } from '../state/record-input';
import type { StateCore } from '../state/session-state';
import { notFound } from '../errors';
import type { Messages } from './messages';

export const MESSAGE_MAX_CHARS = 100_000;
export const LOCAL_USER = { type: 'human', id: 'local-user' } as const;

/**
 * A person's turn in a session, under the spec's rules: `human_direct_message` (actor human) is
 * recorded only when the session has a parent or at least one watcher (one lookup), with the
 * parent as producer watcher. The composer and a session started from the app both come here.
 */
export function recordHumanTurn(
  state: Pick<StateCore, 'hasParentOrWatcher' | 'record'>,
  session: SessionInfo,
  channel: string,
): void {
  if (!state.hasParentOrWatcher(session.key, session.agentId)) return;
  state.record({
    sessionKey: session.key,
    agentId: session.agentId,
    kind: 'human_direct_message',
    actorType: 'human',
    actorId: LOCAL_USER.id,
    summary: `human message via ${channel}`,
    payload: { channel },
    ...(session.parentKey ? { watchers: [session.parentKey] } : {}),
  });
}

export interface Human {
  send(sessionKey: string, text: string, opts?: { channel?: string }): Promise<void>;
}

export function createHuman(deps: { store: SessionStore; state: StateCore; messages: Messages }): Human {
  const { store, state } = deps;
  return {
    async send(sessionKey, text, opts = {}) {
      if (typeof sessionKey !== 'string' || sessionKey.length === 0)
        throw new Error('sessionKey is required');
      if (typeof text !== 'string' || text.trim().length === 0)
        throw new Error('text must be a non-empty string');
      if (text.length > MESSAGE_MAX_CHARS)
        throw new Error(`text must be at most ${MESSAGE_MAX_CHARS} characters`);
      const session = store.get(sessionKey);
      if (!session) throw notFound(`Unknown sessionKey: ${sessionKey}`);
      if (opts.channel !== undefined && typeof opts.channel !== 'string')
        throw new Error('channel must be a string');
      await deps.messages.deliver(session.key, text, LOCAL_USER, (external) => {
        // Absent → the composer's own channel (desktop, or the external session's); given but
        // empty → `unknown`, as the spec's summary rule says.
        const channel =
          opts.channel === undefined ? (external ?? 'desktop') : oneLine(opts.channel, 64) || 'unknown';
        recordHumanTurn(state, session, channel);
      });
    },
  };
}
