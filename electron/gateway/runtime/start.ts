// `sessions.start` (contract): a person starts a session from the app. It checks what the person
// chose (the agent or ACP profile, the working folder, the parent) and hands the rest to the one
// spawn path with the person as the one who spawns.
import { statSync } from 'node:fs';
import path from 'node:path';
import { childKeyFor, parseSessionKey } from '../../../shared/session-keys';
import { invalidArgument, notFound } from '../errors';
import type { SessionStore } from '../sessions/store';
import type { SessionInfo, StartInput } from '../types';
import type { Worktrees } from '../worktrees';
import type { AgentStore } from './agents';
import { MESSAGE_MAX_CHARS, personId } from './human';
import { isolate } from './isolation';
import type { Spawner } from './spawn';

export interface StarterDeps {
  spawner: Spawner;
  store: SessionStore;
  agents: AgentStore;
  worktrees: Worktrees;
}

/** The folder must be an absolute path to an existing directory; returns it normalised. */
export function checkFolder(cwd: string): string {
  if (typeof cwd !== 'string' || cwd.trim() === '') throw invalidArgument('cwd must be a folder path');
  if (!path.isAbsolute(cwd)) throw invalidArgument(`cwd must be an absolute path: ${cwd}`);
  const st = statSync(cwd, { throwIfNoEntry: false });
  if (!st) throw invalidArgument(`cwd does not exist: ${cwd}`);
  if (!st.isDirectory()) throw invalidArgument(`cwd is not a folder: ${cwd}`);
  return path.resolve(cwd);
}

/** A folder on a node: an absolute path, checked there. */
function remoteFolder(cwd: string): string {
  if (typeof cwd !== 'string' || cwd.trim() === '' || cwd.length > 4096 || cwd.includes('\0'))
    throw invalidArgument('cwd must be a folder path');
  if (!cwd.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(cwd))
    throw invalidArgument(`cwd must be an absolute path on the node: ${cwd}`);
  return cwd;
}

export function createStarter(deps: StarterDeps) {
  return async function start(input: StartInput): Promise<SessionInfo> {
    if (!input || typeof input !== 'object') throw invalidArgument('start input must be an object');
    const { agentId, acpProfileId, runtime, message, label, parentKey } = input;
    if ([agentId, acpProfileId, runtime].filter((x) => x !== undefined).length !== 1)
      throw invalidArgument('choose exactly one of agentId and acpProfileId');
    if (runtime !== undefined && (typeof runtime !== 'string' || ['native', 'acp'].includes(runtime)))
      throw invalidArgument('runtime names another runner; use agentId or acpProfileId for these');
    if (typeof message !== 'string' || message.trim() === '')
      throw invalidArgument('message must be a non-empty string');
    if (message.length > MESSAGE_MAX_CHARS)
      throw invalidArgument(`message must be at most ${MESSAGE_MAX_CHARS} characters`);
    if (label !== undefined && typeof label !== 'string') throw invalidArgument('label must be a string');
    const { node } = input;
    if (node !== undefined && (typeof node !== 'string' || node === '' || node.length > 128))
      throw invalidArgument('node must be a paired node id');
    if (node !== undefined && acpProfileId === undefined)
      throw invalidArgument('Only an ACP agent runs on a paired node: choose an acpProfileId');
    // On a node the folder is one on that machine: the node checks it when the agent starts.
    const cwd =
      input.cwd === undefined
        ? undefined
        : node !== undefined
          ? remoteFolder(input.cwd)
          : checkFolder(input.cwd);
    let parent: SessionInfo | undefined;
    if (parentKey !== undefined) {
      parent = typeof parentKey === 'string' ? deps.store.get(parentKey) : undefined;
      if (!parent) throw notFound(`Unknown sessionKey: ${String(parentKey)}`);
    }
    // A model agent's session is its sub-agent; an ACP session belongs to the parent's agent, or `main`.
    let owner: string;
    if (agentId !== undefined) {
      const agent = typeof agentId === 'string' ? deps.agents.get(agentId.toLowerCase()) : undefined;
      if (!agent) throw notFound(`Unknown agent: ${String(agentId)}`);
      owner = agent.id;
    } else if (runtime !== undefined) {
      owner = parent ? (parseSessionKey(parent.key).agentId ?? parent.agentId) : 'main';
    } else {
      if (typeof acpProfileId !== 'string' || acpProfileId === '')
        throw invalidArgument('acpProfileId must be a profile id');
      owner = parent ? (parseSessionKey(parent.key).agentId ?? parent.agentId) : 'main';
    }
    const kind = runtime ?? (acpProfileId !== undefined ? 'acp' : 'native');
    const from = { type: 'human', id: personId(input.actorId) } as const;
    const folder = input.worktreesFolder === undefined ? undefined : checkFolder(input.worktreesFolder);
    const place = await isolate(deps.worktrees, {
      agentId: owner,
      runtime: kind,
      message,
      ...(label ? { label } : {}),
      ...(cwd ? { cwd } : {}),
      ...(folder ? { folder } : {}),
      isolation: input.isolation,
      base: input.base,
      node,
    });
    try {
      const { session } = await deps.spawner.start({
        runtime: kind,
        agentId: owner,
        message,
        from,
        id: place.id,
        ...(parent ? { parentKey: parent.key } : {}),
        ...(label !== undefined && label.trim() !== '' ? { label } : {}),
        ...(acpProfileId !== undefined ? { profile: acpProfileId } : {}),
        ...(place.cwd ? { cwd: place.cwd } : {}),
        ...(node !== undefined ? { node } : {}),
      });
      await place.settle(true);
      return session;
    } catch (err) {
      await place.settle(deps.store.get(childKeyFor(owner, kind, place.id)) !== undefined);
      throw err;
    }
  };
}
