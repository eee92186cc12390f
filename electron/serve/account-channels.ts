// The account channels of a serve gateway (shared/ipc/accounts.ts): who am I, the people, the
// audit view for everyone; invitations and revocation for owners only. Arguments arrive from
// the wire and are checked here.
import { SERVE_CLOSE, type AccountChannel } from '../../shared/ipc/accounts';
import type { Envelope } from '../../shared/ipc/contract';
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
  const args = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const { accounts } = deps;
  switch (channel) {
    case 'accounts:me':
      return { ok: true, value: a };
    case 'accounts:list':
      return { ok: true, value: accounts.list() };
    case 'audit:list': {
      const { beforeId, limit } = args;
      if (beforeId !== undefined && !Number.isSafeInteger(beforeId))
        return fail('invalid_argument', 'beforeId must be an integer');
      if (limit !== undefined && (!Number.isSafeInteger(limit) || (limit as number) < 1))
        return fail('invalid_argument', 'limit must be a positive integer');
      return {
        ok: true,
        value: accounts.audit({
          beforeId: beforeId as number | undefined,
          limit: limit as number | undefined,
        }),
      };
    }
    case 'accounts:invite': {
      if (a.role !== 'owner') return fail('forbidden', 'only an owner invites people');
      const role = args.role ?? 'member';
      if (role !== 'member' && role !== 'owner')
        return fail('invalid_argument', 'role must be member or owner');
      const invite = accounts.invite(a.id, role);
      accounts.record(a.id, 'invite', undefined, role);
      return { ok: true, value: invite };
    }
    case 'accounts:revoke': {
      if (a.role !== 'owner') return fail('forbidden', 'only an owner revokes a credential');
      if (typeof args.accountId !== 'string') return fail('invalid_argument', 'accountId must be a string');
      if (!accounts.get(args.accountId))
        return fail('not_found', `Unknown account: ${args.accountId.slice(0, 100)}`);
      const revoked = accounts.revoke(args.accountId);
      if (revoked) {
        accounts.record(a.id, 'revoke', args.accountId);
        deps.kick(args.accountId, SERVE_CLOSE.revoked);
      }
      return { ok: true, value: { revoked } };
    }
  }
}
