// Where a new session's agent works (issue 26): in its own git worktree on its own branch, or in
// place. The default for a real agent (an ACP child) started in a git repository is a worktree;
// a folder that is not a repository (or has no commits, or is bare) starts in place and says so.
// The worktree is made before the session is committed; `settle` marks it kept or removes it.
import { childKeyFor } from '../../../shared/session-keys';
import { invalidArgument } from '../errors';
import type { Worktrees } from '../worktrees';
import { newChildId } from './spawn';

export type IsolationChoice = 'worktree' | 'none';

export interface IsolationRequest {
  agentId: string;
  runtime: string;
  label?: string;
  message: string;
  cwd?: string;
  isolation?: unknown;
  base?: unknown;
  /** A paired node's id: worktrees there are not supported yet. */
  node?: unknown;
  /** The person's folder for worktrees (default: the data folder's). */
  folder?: string;
}

export interface Isolated {
  /** The child key's id (the worktree's branch and folder name it). */
  id: string;
  /** The agent's folder: the worktree's, or the one given. */
  cwd?: string;
  /** Why the agent works in place, when a worktree was the default but could not be. */
  inPlace?: string;
  /** After the start: true keeps the worktree (the session committed), false removes it. */
  settle(committed: boolean): Promise<void>;
}

const nothing = async () => undefined;

export async function isolate(worktrees: Worktrees, req: IsolationRequest): Promise<Isolated> {
  const { isolation, base, node } = req;
  if (isolation !== undefined && isolation !== 'worktree' && isolation !== 'none')
    throw invalidArgument('isolation must be "worktree" or "none"');
  if (base !== undefined && isolation === 'none')
    throw invalidArgument('base is for isolation "worktree" only');
  const id = newChildId();
  const inPlace = (why?: string): Isolated => ({
    id,
    ...(req.cwd ? { cwd: req.cwd } : {}),
    ...(why ? { inPlace: why } : {}),
    settle: nothing,
  });
  if (node !== undefined && isolation !== 'none') {
    if (isolation === 'worktree' || base !== undefined)
      throw invalidArgument(
        'Worktrees on a paired node are not supported yet: start the agent in place on the node',
      );
    return inPlace();
  }
  if (isolation === 'none') return inPlace();
  if (isolation === undefined) {
    // The default: isolated for real agents in a repository, in place otherwise.
    if (req.runtime !== 'acp' || !req.cwd) return inPlace();
    const found = await worktrees.probe(req.cwd);
    if (found.inPlaceReason) return inPlace(found.inPlaceReason);
  }
  if (!req.cwd) throw invalidArgument('isolation "worktree" needs cwd: a folder in a git repository');
  const sessionKey = childKeyFor(req.agentId, req.runtime, id);
  const w = await worktrees.create({
    sessionKey,
    label: req.label ?? req.message.slice(0, 40),
    cwd: req.cwd,
    ...(base !== undefined ? { base: base as string } : {}),
    ...(req.folder ? { folder: req.folder } : {}),
  });
  return {
    id,
    cwd: w.path,
    settle: async (committed) =>
      committed ? worktrees.committed(sessionKey) : worktrees.abandon(sessionKey),
  };
}
