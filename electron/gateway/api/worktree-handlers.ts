// The worktrees channels (issue 26): each checks the session exists, then asks the service.
import type { WorktreeResults } from '../../../shared/ipc/worktrees';
import type { SessionInfo } from '../types';
import type { WorktreesApi } from './gateway-api';
import type { Handler } from './handlers';

type WorktreeChannel = keyof WorktreeResults;

export function worktreeHandlers(
  worktrees: () => WorktreesApi,
  session: (rawKey: string) => SessionInfo,
  actorId: string | undefined,
): { [C in WorktreeChannel]: Handler<C> } {
  const key = (raw: string) => session(raw).key;
  return {
    'worktrees:probe': async ({ path }) => worktrees().probe(path),
    'worktrees:diff': async ({ sessionKey }) => worktrees().diff(key(sessionKey)),
    'worktrees:changes': async ({ sessionKey }) => worktrees().changes(key(sessionKey)),
    'worktrees:file': async ({ sessionKey, path }) => worktrees().filePatch(key(sessionKey), path),
    'worktrees:impact': async ({ sessionKey }) => worktrees().impact(key(sessionKey)),
    'worktrees:merge': async ({ sessionKey, strategy, message }) =>
      worktrees().merge(key(sessionKey), {
        ...(strategy !== undefined ? { strategy } : {}),
        ...(message !== undefined ? { message } : {}),
      }),
    'worktrees:rebase': async ({ sessionKey }) => worktrees().rebase(key(sessionKey)),
    'worktrees:discard': async ({ sessionKey }) => {
      await worktrees().discard(key(sessionKey));
      return { discarded: true };
    },
    'worktrees:keep': async ({ sessionKey }) => {
      worktrees().forget(key(sessionKey));
      return { kept: true };
    },
    'worktrees:review': async ({ sessionKey, verdict, summary, comments }) => {
      await worktrees().review(
        key(sessionKey),
        { comments, ...(verdict ? { verdict } : {}), ...(summary ? { summary } : {}) },
        actorId !== undefined ? { actorId } : {},
      );
      return { sent: true };
    },
    'worktrees:overlaps': async () => worktrees().overlaps(),
  };
}
