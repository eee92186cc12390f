// The runtime's agent tools: sessions_history, sessions_send, sessions_spawn, goal_set, goal_clear.
import { LIMITS } from '../../../shared/ipc/limits';
import { maskCredentials, maskCredentialsDeep } from '../../../shared/mask-credentials';
import { normalizeSessionKey } from '../../../shared/session-keys';
import type { SessionStore } from '../sessions/store';
import type { TranscriptStore } from '../sessions/transcripts';
import type { TranscriptMessage } from '../types';
import type { StateCore } from '../state/session-state';
import { checkReach } from '../tools/reach';
import {
  optionalBoolean,
  optionalInteger,
  optionalString,
  requireString,
  ToolError,
  type ToolContext,
  type ToolDefinition,
} from '../tools/registry';
import type { AgentStore } from './agents';
import { GOAL_STATUSES, type Goals } from './goals';
import type { Messages } from './messages';
import type { Spawner } from './spawn';
import { GatewayError } from '../errors';
import type { Worktrees } from '../worktrees';
import { isolate, type Isolated } from './isolation';

export const MESSAGE_MAX_CHARS = LIMITS.messageText;
const HISTORY_TEXT_MAX = 4000;

export interface AgentToolDeps {
  store: SessionStore;
  transcripts: TranscriptStore;
  state: StateCore;
  agents: AgentStore;
  goals: Goals;
  messages: Messages;
  spawner: Spawner;
  worktrees: Worktrees;
  /** The paired nodes (issue 30.1): sessions_spawn's `node` names one by id or name. */
  nodes?: { list(): { id: string; name: string; state: 'online' | 'offline'; lastError?: string }[] };
}

/**
 * Where a spawned ACP agent runs when the caller names a node (its id or name): a paired node
 * that is connected now, and a folder on that machine (`cwd`). Undefined: this machine.
 */
function onNode(
  deps: AgentToolDeps,
  args: Record<string, unknown>,
  runtime: string,
): { node: string; cwd?: string } | undefined {
  const named = optionalString(args, 'node', 128);
  const cwd = optionalString(args, 'cwd', LIMITS.cwd);
  if (named === undefined) {
    if (cwd !== undefined) throw new ToolError('cwd is for an agent on a node: give node too');
    return undefined;
  }
  if (runtime !== 'acp') throw new ToolError('Only an ACP agent runs on a paired node: use runtime "acp"');
  if (optionalString(args, 'isolation', 16) === 'worktree')
    throw new ToolError(
      'Worktrees on a paired node are not supported yet: start the agent in place on the node',
    );
  const all = deps.nodes?.list() ?? [];
  const node = all.find((n) => n.id === named) ?? all.find((n) => n.name === named);
  if (!node)
    throw new ToolError(
      `Unknown node: ${named} (paired nodes: ${all.map((n) => n.name).join(', ') || 'none'})`,
    );
  if (node.state !== 'online')
    throw new ToolError(
      `The node "${node.name}" is not connected${node.lastError ? `: ${node.lastError}` : ''}`,
    );
  if (cwd !== undefined && !cwd.startsWith('/'))
    throw new ToolError(`cwd must be an absolute path on the node: ${cwd}`);
  return { node: node.id, ...(cwd !== undefined ? { cwd } : {}) };
}

/** The session `raw` names, when it exists and is in the caller's reach. */
function knownSession(deps: AgentToolDeps, ctx: ToolContext, raw: string) {
  const key = normalizeSessionKey(raw);
  checkReach(deps.store, ctx, key, raw);
  const session = deps.store.get(key);
  if (!session) throw new ToolError(`Unknown sessionKey: ${raw}`);
  return session;
}

/**
 * A transcript line as another session reads it: credential-like text masked for every caller
 * (shared/mask-credentials.ts), counted into `tally`.
 */
function readable(m: TranscriptMessage, tally: { masked: number }) {
  const clipped = m.text.length > HISTORY_TEXT_MAX ? `${m.text.slice(0, HISTORY_TEXT_MAX)}…` : m.text;
  const text = maskCredentials(clipped);
  tally.masked += text.masked;
  const calls = m.toolCalls?.length
    ? maskCredentialsDeep(m.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments })))
    : undefined;
  tally.masked += calls?.masked ?? 0;
  return {
    id: m.id,
    role: m.role,
    actorType: m.actorType,
    ...(m.actorId ? { actorId: m.actorId } : {}),
    ...(m.toolName ? { toolName: m.toolName } : {}),
    ...(calls ? { toolCalls: calls.value } : {}),
    text: text.text,
    createdAt: m.createdAt,
  };
}

/**
 * A spawned ACP agent in its own worktree of the caller's repository, when the caller asks
 * (isolation "worktree"); the profile must allow agents (checked by the spawn, which then removes
 * the worktree again). Undefined: no isolation asked.
 */
async function isolated(
  deps: AgentToolDeps,
  caller: string,
  req: { agentId: string; runtime: string; task: string; label?: string; args: Record<string, unknown> },
): Promise<Isolated | undefined> {
  const isolation = optionalString(req.args, 'isolation', 16);
  const base = optionalString(req.args, 'base', 200);
  if (isolation !== undefined && isolation !== 'worktree' && isolation !== 'none')
    throw new ToolError('isolation must be "worktree" or "none"');
  if (isolation === 'none' && base !== undefined)
    throw new ToolError('base is for isolation "worktree" only');
  if (isolation !== 'worktree' && base === undefined) return undefined;
  if (req.runtime !== 'acp')
    throw new ToolError('isolation "worktree" is for runtime "acp" (a coding agent)');
  const cwd = deps.store.get(caller)?.cwd;
  if (!cwd)
    throw new ToolError('isolation "worktree" needs your session to work in a folder of a git repository');
  try {
    return await isolate(deps.worktrees, {
      agentId: req.agentId,
      runtime: req.runtime,
      message: req.task,
      isolation: 'worktree',
      base,
      ...(req.label ? { label: req.label } : {}),
      ...(cwd ? { cwd } : {}),
    });
  } catch (err) {
    if (err instanceof GatewayError) throw new ToolError(err.message);
    throw err;
  }
}

/** sessions_history: a page of another session's transcript, secrets masked. */
function historyTool(deps: AgentToolDeps): ToolDefinition {
  return {
    name: 'sessions_history',
    description:
      'Read a session transcript, newest page first (page with beforeId). Credential-like text (API keys, tokens, private keys, passwords in URLs) is masked; `masked` says how many were.',
    parameters: {
      type: 'object',
      properties: {
        sessionKey: { type: 'string' },
        beforeId: { type: 'integer', minimum: 1 },
        limit: { type: 'integer', minimum: 1, maximum: 100 },
      },
      required: ['sessionKey'],
    },
    run(ctx, args) {
      const session = knownSession(deps, ctx, requireString(args, 'sessionKey'));
      const beforeId = optionalInteger(args, 'beforeId', 1, Number.MAX_SAFE_INTEGER);
      const limit = optionalInteger(args, 'limit', 1, 100) ?? 20;
      const page = deps.transcripts.page(session.key, { ...(beforeId ? { beforeId } : {}), limit });
      const tally = { masked: 0 };
      const messages = page.messages.map((m) => readable(m, tally));
      return {
        sessionKey: session.key,
        messages,
        hasMore: page.hasMore,
        ...(page.hasMore && page.messages[0] ? { nextBeforeId: page.messages[0].id } : {}),
        ...(tally.masked > 0 ? { masked: tally.masked } : {}),
      };
    },
  };
}

/** sessions_send: a message into another session (its turn starts), optionally watching it. */
function sendTool(deps: AgentToolDeps): ToolDefinition {
  return {
    name: 'sessions_send',
    description:
      'Send a message to another session (starts its turn). watch: true makes you a watcher of it.',
    parameters: {
      type: 'object',
      properties: { sessionKey: { type: 'string' }, message: { type: 'string' }, watch: { type: 'boolean' } },
      required: ['sessionKey', 'message'],
    },
    async run(ctx, args) {
      const session = knownSession(deps, ctx, requireString(args, 'sessionKey'));
      const message = requireString(args, 'message', MESSAGE_MAX_CHARS);
      const watch = optionalBoolean(args, 'watch');
      // Into an adopted session this waits for the person (a permission request) and fails with
      // `declined by the person` when they say no.
      await deps.messages.deliver(session.key, message, { type: 'agent', id: ctx.caller }, undefined, {
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
      // Registered only after a successful dispatch, on the session that actually received it
      // (watching oneself is refused by registerWatch: watched false).
      const watched = watch === true ? deps.state.registerWatch(ctx.caller, session.key) : false;
      return { status: 'delivered', sessionKey: session.key, ...(watch !== undefined ? { watched } : {}) };
    },
  };
}

/** sessions_spawn: a sub-agent session, native or ACP, optionally in its own worktree or on a node. */
function spawnTool(deps: AgentToolDeps): ToolDefinition {
  return {
    name: 'sessions_spawn',
    description:
      'Spawn a sub-agent session for a task. It runs in the background; its completion is announced to you. runtime "acp" starts an ACP coding agent (profile).',
    parameters: {
      type: 'object',
      properties: {
        task: { type: 'string' },
        label: { type: 'string' },
        agentId: { type: 'string' },
        timeoutSeconds: { type: 'integer', minimum: 1, maximum: 86400 },
        runtime: { type: 'string', enum: ['native', 'acp'] },
        profile: { type: 'string' },
        isolation: {
          type: 'string',
          enum: ['worktree', 'none'],
          description:
            'acp only: "worktree" gives the agent its own git worktree and branch of your folder\'s repository',
        },
        base: {
          type: 'string',
          description: 'with isolation "worktree": the branch or commit to start from',
        },
        node: {
          type: 'string',
          description:
            'acp only: a paired node (its id or name) to run the agent on; the person is asked once for that node',
        },
        cwd: { type: 'string', description: 'with node: the folder on that machine the agent works in' },
      },
      required: ['task'],
    },
    async run(ctx, args) {
      const task = requireString(args, 'task', MESSAGE_MAX_CHARS);
      const label = optionalString(args, 'label', 200);
      const agentId = (optionalString(args, 'agentId', 64) ?? ctx.callerAgentId).toLowerCase();
      // `runTimeoutSeconds` is the name other gateways use; models trained on them send it.
      const timeoutSeconds =
        optionalInteger(args, 'timeoutSeconds', 1, 86_400) ??
        optionalInteger(args, 'runTimeoutSeconds', 1, 86_400);
      const runtime = optionalString(args, 'runtime', 16) ?? 'native';
      if (runtime !== 'native' && runtime !== 'acp') throw new ToolError('runtime must be "native" or "acp"');
      if (!deps.agents.get(agentId)) throw new ToolError(`Unknown agentId: ${agentId}`);
      const timeoutMs = timeoutSeconds ? timeoutSeconds * 1000 : undefined;
      const profile = runtime === 'acp' ? optionalString(args, 'profile', 64) : undefined;
      const remote = onNode(deps, args, runtime);
      const place = await isolated(deps, ctx.caller, { agentId, runtime, task, label, args });
      try {
        const spawned = deps.spawner.spawn({
          runtime,
          agentId,
          message: task,
          from: { type: 'agent', id: ctx.caller },
          parentKey: ctx.caller,
          ...(label ? { label } : {}),
          ...(profile ? { profile } : {}),
          ...(timeoutMs ? { timeoutMs } : {}),
          ...(place ? { id: place.id, ...(place.cwd ? { cwd: place.cwd } : {}) } : {}),
          ...(remote ?? {}),
        });
        await place?.settle(true);
        return { status: 'accepted', ...spawned, ...(place?.cwd ? { cwd: place.cwd } : {}), ...remote };
      } catch (err) {
        await place?.settle(false);
        throw err;
      }
    },
  };
}

/** goal_set: the caller's own goal, created or updated. */
function goalSetTool(deps: AgentToolDeps): ToolDefinition {
  return {
    name: 'goal_set',
    description: "Create or update your session's goal (objective and/or status).",
    parameters: {
      type: 'object',
      properties: { objective: { type: 'string' }, status: { type: 'string', enum: [...GOAL_STATUSES] } },
    },
    run(ctx, args) {
      const objective = optionalString(args, 'objective', 2000);
      const status = optionalString(args, 'status', 16);
      if (objective === undefined && status === undefined)
        throw new ToolError('objective or status is required');
      if (status !== undefined && !(GOAL_STATUSES as readonly string[]).includes(status)) {
        throw new ToolError(`status must be one of ${GOAL_STATUSES.join(', ')}`);
      }
      if (!deps.goals.get(ctx.caller) && objective === undefined)
        throw new ToolError('objective is required to create a goal');
      try {
        const goal = deps.goals.set(
          ctx.caller,
          {
            ...(objective !== undefined ? { objective } : {}),
            ...(status ? { status: status as never } : {}),
          },
          { type: 'agent', id: ctx.caller },
        );
        return { goal };
      } catch (err) {
        throw new ToolError(err instanceof Error ? err.message : String(err));
      }
    },
  };
}

/** goal_clear: the caller's own goal, cleared. */
function goalClearTool(deps: AgentToolDeps): ToolDefinition {
  return {
    name: 'goal_clear',
    description: "Clear your session's goal.",
    parameters: { type: 'object', properties: {} },
    run(ctx) {
      return { cleared: deps.goals.clear(ctx.caller, { type: 'agent', id: ctx.caller }) };
    },
  };
}

export function agentTools(deps: AgentToolDeps): ToolDefinition[] {
  return [historyTool, sendTool, spawnTool, goalSetTool, goalClearTool].map((tool) => tool(deps));
}
