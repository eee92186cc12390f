// What the person does from the composer: `human.send` (contract). The message is delivered
// (transcript + turn for a native session, upstream or to the ACP agent otherwise) and
// `human_direct_message` is recorded in the same transaction under the spec's gate.
import type { SessionInfo } from '../../../shared/domain';
import type { SessionStore } from '../sessions/store';
import { oneLine } from '../state/record-input';
import type { StateCore } from '../state/session-state';
import { invalidArgument, notFound } from '../errors';
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
  actorId: string = LOCAL_USER.id,
): void {
  if (!state.hasParentOrWatcher(session.key, session.agentId)) return;
  state.record({
    sessionKey: session.key,
    agentId: session.agentId,
    kind: 'human_direct_message',
    actorType: 'human',
    actorId,
    summary: `human message via ${channel}`,
    payload: { channel },
    ...(session.parentKey ? { watchers: [session.parentKey] } : {}),
  });
}

/** A person's actor id as given by a transport: one line, at most 128 characters. */
export function personId(given: unknown): string {
  if (given === undefined) return LOCAL_USER.id;
  if (typeof given !== 'string' || !/^[\w.:@-]{1,128}$/.test(given))
    throw invalidArgument('actorId must be 1-128 letters, digits or ._:@-');
  return given;
}

export interface Human {
  /** actorId: the person's account on a shared gateway (`npm run serve`); default `local-user`. */
  send(sessionKey: string, text: string, opts?: { channel?: string; actorId?: string }): Promise<void>;
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
      const actorId = personId(opts.actorId);
      await deps.messages.deliver(session.key, text, { type: 'human', id: actorId }, (external) => {
        // Absent → the composer's own channel (desktop, or the external session's); given but
        // empty → `unknown`, as the spec's summary rule says.
        const channel =
          opts.channel === undefined ? (external ?? 'desktop') : oneLine(opts.channel, 64) || 'unknown';
        recordHumanTurn(state, session, channel, actorId);
      });
    },
  };
}
