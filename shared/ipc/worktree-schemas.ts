// zod schemas of the worktrees channels (issue 26), spread into SCHEMAS. Names a person or an
// agent gives are bounded here and checked again by the gateway before git sees them.
import { z } from 'zod';
import { LIMITS } from './limits';

const sessionKey = z
  .string({ error: 'sessionKey must be a string' })
  .min(1, { error: 'sessionKey must not be empty' })
  .max(LIMITS.sessionKey, { error: `sessionKey must be at most ${LIMITS.sessionKey} characters` });
const sessionOnly = z.strictObject({ sessionKey });
const text = (name: string, max: number) =>
  z
    .string({ error: `${name} must be a string` })
    .max(max, { error: `${name} must be at most ${max} characters` })
    .refine((t) => t.trim().length > 0, { error: `${name} must not be empty` });

export const WORKTREE_SCHEMAS = {
  'worktrees:probe': z.strictObject({
    path: text('path', LIMITS.cwd).refine((p) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p), {
      error: 'path must be an absolute path',
    }),
  }),
  'worktrees:diff': sessionOnly,
  'worktrees:changes': sessionOnly,
  'worktrees:file': z.strictObject({ sessionKey, path: text('path', LIMITS.cwd) }),
  'worktrees:impact': sessionOnly,
  'worktrees:merge': z.strictObject({
    sessionKey,
    strategy: z.enum(['squash', 'merge'], { error: 'strategy must be squash or merge' }).optional(),
    message: text('message', 10_000).optional(),
  }),
  'worktrees:rebase': sessionOnly,
  'worktrees:discard': sessionOnly,
  'worktrees:keep': sessionOnly,
  'worktrees:review': z.strictObject({
    sessionKey,
    verdict: z
      .enum(['approve', 'request_changes', 'comment'], {
        error: 'verdict must be approve, request_changes or comment',
      })
      .optional(),
    summary: z
      .string({ error: 'summary must be a string' })
      .max(4000, { error: 'summary must be at most 4000 characters' })
      .optional(),
    comments: z
      .array(
        z.strictObject({
          path: text('path', LIMITS.cwd),
          line: z
            .number({ error: 'line must be a number' })
            .int({ error: 'line must be an integer' })
            .min(1, { error: 'line must be 1 or more' }),
          side: z.enum(['old', 'new'], { error: 'side must be old or new' }).optional(),
          text: text('text', 4000),
        }),
        { error: 'comments must be a list' },
      )
      .max(200, { error: 'at most 200 comments in one review' }),
  }),
  'worktrees:overlaps': z.strictObject({}),
} as const;
