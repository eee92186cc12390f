// The account channels of a serve gateway (shared/ipc/accounts.ts): who am I, the people, the
// audit view for everyone; invitations and revocation for owners only. Arguments are parsed
// with the contract's schemas (shared/ipc/schemas.ts), as every other channel's.
import { SERVE_CLOSE, type AccountChannel } from '../../shared/ipc/accounts';
import type { Envelope } from '../../shared/ipc/contract';
import { parseArgs, type ArgsParsed } from '../../shared/ipc/schemas';
import type { Account, Accounts } from './accounts';

export interface AccountDeps {
  accounts: Accounts;
  kick(accountId: string, close: { code: number; reason: string }): void;
}

const fail = (code: 'invalid_argument' | 'forbidden' | 'not_found', message: string): Envelope<unknown> => ({
  ok: false,
  error: { code, message },
});

export function accountCall(
  deps: AccountDeps,
  a: Account,
  channel: AccountChannel,
  raw: unknown,
): Envelope<unknown> {
  const parsed = parseArgs(channel, raw);
  if (!parsed.ok) return fail('invalid_argument', parsed.message);
  const { accounts } = deps;
  switch (channel) {
    case 'accounts:me':
      return { ok: true, value: a };
    case 'accounts:list':
      return { ok: true, value: accounts.list() };
    case 'audit:list': {
      const { beforeId, limit } = parsed.value as ArgsParsed<'audit:list'>;
      return { ok: true, value: accounts.audit({ ...(beforeId !== undefined ? { beforeId } : {}), limit }) };
    }
    case 'accounts:invite': {
      if (a.role !== 'owner') return fail('forbidden', 'only an owner invites people');
      const { role } = parsed.value as ArgsParsed<'accounts:invite'>;
      const invite = accounts.invite(a.id, role);
      accounts.record(a.id, 'invite', undefined, role);
      return { ok: true, value: invite };
    }
    case 'accounts:revoke': {
      if (a.role !== 'owner') return fail('forbidden', 'only an owner revokes a credential');
      const { accountId } = parsed.value as ArgsParsed<'accounts:revoke'>;
      if (!accounts.get(accountId)) return fail('not_found', `Unknown account: ${accountId.slice(0, 100)}`);
      const revoked = accounts.revoke(accountId);
      if (revoked) {
        accounts.record(a.id, 'revoke', accountId);
        deps.kick(accountId, SERVE_CLOSE.revoked);
      }
      return { ok: true, value: { revoked } };
    }
  }
}
