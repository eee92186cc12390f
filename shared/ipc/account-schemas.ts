// zod schemas of the account channels (a gateway a team shares, shared/ipc/accounts.ts), spread
// into SCHEMAS. A local gateway answers them `unavailable`; the serve gateway parses with these.
import { z } from 'zod';

const empty = z.strictObject({});

export const ACCOUNT_SCHEMAS = {
  'accounts:me': empty,
  'accounts:list': empty,
  'accounts:invite': z.strictObject({
    role: z.enum(['member', 'owner'], { error: 'role must be member or owner' }).default('member'),
  }),
  'accounts:revoke': z.strictObject({
    accountId: z
      .string({ error: 'accountId must be a string' })
      .min(1, { error: 'accountId must not be empty' })
      .max(200, { error: 'accountId must be at most 200 characters' }),
  }),
  'audit:list': z.strictObject({
    beforeId: z.number().int({ error: 'beforeId must be an integer' }).positive().optional(),
    limit: z.number().int({ error: 'limit must be an integer' }).min(1).max(500).default(100),
  }),
} as const;
