// Who did what on a shared gateway: the acting person of each request (AsyncLocalStorage, so a
// consent question asked deep inside a start knows who caused it), the audit of the actions the
// issue names, and the routing of consent questions to the person who caused them.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Envelope } from '../../shared/ipc/contract';
import type { ConsentRequestView, GatewayEvent } from '../gateway/types';
import type { Account, Accounts } from './accounts';

export const acting = new AsyncLocalStorage<Account>();

/** The channels the audit view lists, by the action's name. */
const AUDITED: Record<string, string> = {
  'catalog:adopt': 'adopt',
  'sessions:start': 'start',
  'human:send': 'send',
  'sessions:delete': 'delete',
  'consent:respond': 'consent',
  // An agent's permission request answered is consent too (which option, or rejected).
  'acp:permissions:respond': 'consent',
};

/** Records an audited action that succeeded (a refused one changed nothing). */
export function audit(
  accounts: Accounts,
  a: Account,
  channel: unknown,
  args: unknown,
  result: Envelope<unknown>,
): void {
  const action = typeof channel === 'string' ? AUDITED[channel] : undefined;
  if (!action || !result.ok) return;
  const arg = (args ?? {}) as Record<string, unknown>;
  const value = (result.value ?? {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v.slice(0, 300) : undefined);
  const target = str(arg.sessionKey) ?? str(value.key) ?? str(arg.requestId) ?? str(arg.threadId);
  const detail =
    channel === 'acp:permissions:respond'
      ? (str(arg.optionId) ?? 'rejected')
      : action === 'consent'
        ? arg.allow === true
          ? 'allowed'
          : 'declined'
        : action === 'adopt'
          ? `${str(arg.provider) ?? ''} ${str(arg.threadId) ?? ''}`.trim()
          : undefined;
  accounts.record(a.id, action, target, detail);
}

/**
 * Who asked each waiting consent question (undefined: an agent or a timer; owners answer). A
 * question whose asker was revoked meanwhile goes to the owners.
 */
export function createConsentRouting(people: { live(accountId: string): Account | undefined }) {
  const askedBy = new Map<string, string | undefined>();
  const mayAnswer = (a: Account, requestId: string) => {
    const asker = askedBy.get(requestId);
    const to = asker === undefined ? undefined : people.live(asker);
    return to ? to.id === a.id : a.role === 'owner';
  };
  return {
    /** Called by the consent port as it asks: remembers the acting person. */
    asked(requestId: string): void {
      askedBy.set(requestId, acting.getStore()?.id);
    },
    resolved(requestId: string): void {
      askedBy.delete(requestId);
    },
    mayAnswer,
    /** Whether this client sees the event: a consent question only by whoever may answer it. */
    visible(a: Account, e: GatewayEvent): boolean {
      return e.type !== 'consent:request' || mayAnswer(a, e.request.id);
    },
    filter: (a: Account, list: ConsentRequestView[]) => list.filter((q) => mayAnswer(a, q.id)),
    /** The waiting questions this person asked (to hand to the owners when they are revoked). */
    askedByPerson: (accountId: string) =>
      [...askedBy].filter(([, asker]) => asker === accountId).map(([id]) => id),
  };
}
