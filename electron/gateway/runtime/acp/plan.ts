// Planning an ACP child before anything is written: which profile it runs (one an agent may use,
// whose program is found) and in which folder — here, or on a paired node.
import path from 'node:path';
import { parseSessionKey } from '../../../../shared/session-keys';
import { GatewayError, invalidArgument, notFound } from '../../errors';
import type { ChildRunner } from '../runner';
import { AcpCommandNotFoundError, resolveCommand } from './command';
import type { AcpSessionsDeps } from './live-table';
import type { StoredAcpProfile } from './profile-store';

type Plan = ReturnType<ChildRunner['plan']>;

/**
 * The child's profile, and its folder when it was given none: the profile's, else one of its
 * own under workRoot.
 */
export function planChild(deps: AcpSessionsDeps, key: string, req: Parameters<ChildRunner['plan']>[1]): Plan {
  const profile = profileFor(deps, req.profile, req.by, req.node === undefined);
  if (req.node !== undefined) return planOnNode(deps, profile, req.node, req.cwd);
  const id = parseSessionKey(key).rest.slice('acp:'.length);
  const cwd =
    req.cwd ?? (profile.cwd && path.isAbsolute(profile.cwd) ? profile.cwd : path.join(deps.workRoot, id));
  return { config: profile, cwd, labelHead: profile.name, profileId: profile.id };
}

/** The profile a spawn asks for (by id or name; by default the first one allowed for `by`). */
function profileFor(
  deps: AcpSessionsDeps,
  name: string | undefined,
  by: 'agent' | 'human',
  here: boolean,
): StoredAcpProfile {
  const all = deps.profiles.stored.list();
  const profile = name
    ? (deps.profiles.stored.get(name) ?? all.find((x) => x.name === name))
    : by === 'agent'
      ? (all.find((x) => x.allowAgents) ?? all[0])
      : all[0];
  if (!profile) {
    throw name
      ? notFound(`Unknown ACP profile: ${name}`)
      : invalidArgument('No ACP agent profile is configured (add one in Settings → ACP profiles)');
  }
  // Agents may start only profiles the person allowed for agents.
  if (by === 'agent' && !profile.allowAgents)
    throw new GatewayError('forbidden', `profile "${profile.id}" is not allowed for agents`);
  // On a node the program is found there (agent.prepare).
  try {
    if (here) resolveCommand(profile);
  } catch (err) {
    if (err instanceof AcpCommandNotFoundError) throw new GatewayError('unavailable', err.message);
    throw err;
  }
  return profile;
}

/** An agent on a paired node: the node must be paired, the folder one on that machine. */
function planOnNode(
  deps: AcpSessionsDeps,
  profile: StoredAcpProfile,
  node: string,
  cwd: string | undefined,
): Plan {
  const name = typeof node === 'string' ? deps.nodes?.name(node) : undefined;
  if (name === undefined) throw notFound(`Unknown node: ${String(node).slice(0, 100)}`);
  const folder = cwd ?? (profile.cwd && path.isAbsolute(profile.cwd) ? profile.cwd : undefined);
  if (folder === undefined) throw invalidArgument(`cwd is required: a folder on the node "${name}"`);
  return { config: profile, cwd: folder, labelHead: `${profile.name} on ${name}`, profileId: profile.id };
}
