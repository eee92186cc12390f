// The questions of a shared gateway, each for the person it was asked of: consent questions go
// to whoever caused them (people.ts), an ACP agent's permission requests to whoever started the
// run that asks (permission-routing.ts). Here they meet the gateway and the clients: what each
// person sees, what they may answer, and what a revoked person's waiting requests become.
// Login terminals (login-routing.ts) are their starter's alone.
import type { Envelope } from '../../shared/ipc/contract';
import type { Gateway } from '../gateway/index';
import type { GatewayEvent } from '../gateway/types';
import type { Account, Accounts } from './accounts';
import { createConsentRouting } from './people';
import { createPermissionRouting } from './permission-routing';
import { createLoginRouting } from './login-routing';

export type QuestionRouting = ReturnType<typeof createQuestionRouting>;
type ConsentRouting = ReturnType<typeof createConsentRouting>;
type PermissionRouting = ReturnType<typeof createPermissionRouting>;

/** Questions asked of someone else are not theirs to answer. */
function refuseAnswer(
  routes: { consent: ConsentRouting; permissions: PermissionRouting },
  a: Account,
  channel: unknown,
  args: unknown,
): Envelope<unknown> | undefined {
  const requestId = (args as { requestId?: unknown } | undefined)?.requestId;
  const id = typeof requestId === 'string' ? requestId : '';
  const ok =
    channel === 'consent:respond'
      ? routes.consent.mayAnswer(a, id)
      : channel === 'acp:permissions:respond'
        ? routes.permissions.mayAnswer(a, id)
        : true;
  if (ok) return undefined;
  const what = channel === 'consent:respond' ? 'consent question' : 'permission request';
  return { ok: false, error: { code: 'forbidden', message: `this ${what} was asked of someone else` } };
}

export function createQuestionRouting(accounts: Accounts) {
  const people = {
    live: (id: string) => {
      const a = accounts.get(id);
      return a && a.revokedAt === undefined ? a : undefined;
    },
  };
  const consent = createConsentRouting(people);
  const permissions = createPermissionRouting(people);
  const logins = createLoginRouting();

  /** The lists of questions: each person's own consent questions; permission requests with who was asked. */
  function narrow(a: Account, channel: unknown, result: Envelope<unknown>): Envelope<unknown> {
    if (!result.ok) return result;
    if (channel === 'consent:list')
      return { ok: true, value: consent.filter(a, result.value as Parameters<typeof consent.filter>[1]) };
    if (channel === 'acp:permissions:list')
      return {
        ok: true,
        value: permissions.list(a, result.value as Parameters<typeof permissions.list>[1]),
      };
    return result;
  }

  return {
    /** Hooks a gateway (the first one, and each one swapped in after damage recovery). */
    bind(gw: Gateway): void {
      // First listener: each event is attributed before any client's filter sees it.
      gw.events.on(permissions.observe);
      // Questions wait for an answer from a client; each goes to the person who caused it.
      gw.consent.plug((q) => {
        consent.asked(q.id);
        return gw.consent.pagePrompt(q).finally(() => consent.resolved(q.id));
      });
    },
    /** The event as this person sees it; undefined when it is not for them. */
    view(a: Account, e: GatewayEvent): GatewayEvent | undefined {
      return consent.visible(a, e) && logins.visible(a, e) ? permissions.shape(a, e) : undefined;
    },
    /** Runs a person's request (`run`), refused when it answers someone else's question. */
    async dispatch(
      a: Account,
      channel: unknown,
      args: unknown,
      run: () => Promise<Envelope<unknown>>,
    ): Promise<Envelope<unknown>> {
      const refused =
        refuseAnswer({ consent, permissions }, a, channel, args) ?? logins.refuse(a, channel, args);
      if (refused) return refused;
      const undo = permissions.before(a, channel, args);
      const result = await run();
      if (result.ok) {
        permissions.after(a, channel, result.value);
        logins.after(a, channel, args, result.value);
      } else undo();
      return narrow(a, channel, result);
    },
    /** A revoked person's waiting questions and permission requests, asked again: of the owners now. */
    handOver(gw: Gateway, accountId: string): void {
      const handed = new Set([...permissions.askedOfPerson(accountId), ...consent.askedByPerson(accountId)]);
      for (const request of gw.acp.permissions.pending())
        if (handed.has(request.id)) gw.events.emit({ type: 'acp:permission', request });
      for (const request of gw.consent.pending())
        if (handed.has(request.id)) gw.events.emit({ type: 'consent:request', request });
    },
  };
}
