// The runtime's agent tools: sessions_history, sessions_send, sessions_spawn, goal_set, goal_clear.
import { randomUUID } from 'node:crypto';
import { parseSessionKey } from '../../../shared/session-keys';
import type { SessionStore } from '../sessions/store';
import type { TranscriptStore } from '../sessions/transcripts';
import type { StateCore } from '../state/session-state';
import {
  optionalBoolean,
  optionalInteger,
  optionalString,
  requireString,
  ToolError,
  type ToolDefinition,
} from '../tools/registry';
import type { GatewayEvent } from '../types';
import type { AgentStore } from './agents';
import { GOAL_STATUSES, type Goals } from './goals';
import type { RunStore } from './runs';
import type { TurnEngine } from './turns';

export const MESSAGE_MAX_CHARS = 100_000;
const HISTORY_TEXT_MAX = 4000;

export interface AgentToolDeps {
  now: () => number;
  store: SessionStore;
  transcripts: TranscriptStore;
  state: StateCore;
  agents: AgentStore;
  runs: RunStore;
  goals: Goals;
  engine: TurnEngine;
  emit: (e: GatewayEvent) => void;
  /** ACP children (runtime: "acp"); undefined until that layer is wired. */
  spawnAcp?: (input: {
    caller: string;
    task: string;
    label?: string;
    profile?: string;
    timeoutMs?: number;
    agentId: string;
  }) => Promise<Record<string, unknown>>;
  /** Sends into sessions that are not native (ACP children, adopted sessions). True when handled. */
  deliverExternal?: (
    targetKey: string,
    text: string,
    from: { type: 'agent' | 'human'; id: string },
  ) => Promise<boolean>;
}

function knownSession(deps: AgentToolDeps, raw: string) {
  const key = parseSessionKey(raw).key;
  const session = deps.store.get(key);
  if (!session) throw new ToolError(`Unknown sessionKey: ${raw}`);
  return session;
}

export function agentTools(deps: AgentToolDeps): ToolDefinition[] {
  const history: ToolDefinition = {
    name: 'sessions_history',
    description: 'Read a session transcript, newest page first (page with beforeId).',
    parameters: {
      type: 'object',
      properties: {
        sessionKey: { type: 'string' },
        beforeId: { type: 'integer', minimum: 1 },
        limit: { type: 'integer', minimum: 1, maximum: 100 },
      },
      required: ['sessionKey'],
    },
    run(_ctx, args) {
      const session = knownSession(deps, requireString(args, 'sessionKey'));
      const beforeId = optionalInteger(args, 'beforeId', 1, Number.MAX_SAFE_INTEGER);
      const limit = optionalInteger(args, 'limit', 1, 100) ?? 20;
      const page = deps.transcripts.page(session.key, { ...(beforeId ? { beforeId } : {}), limit });
      return {
        sessionKey: session.key,
        messages: page.messages.map((m) => ({
          id: m.id,
          role: m.role,
          actorType: m.actorType,
          ...(m.actorId ? { actorId: m.actorId } : {}),
          ...(m.toolName ? { toolName: m.toolName } : {}),
          ...(m.toolCalls?.length
            ? { toolCalls: m.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments })) }
            : {}),
          text: m.text.length > HISTORY_TEXT_MAX ? `${m.text.slice(0, HISTORY_TEXT_MAX)}…` : m.text,
          createdAt: m.createdAt,
        })),
        hasMore: page.hasMore,
        ...(page.hasMore && page.messages[0] ? { nextBeforeId: page.messages[0].id } : {}),
      };
    },
  };

  const send: ToolDefinition = {
    name: 'sessions_send',
    description:
      'Send a message to another session (starts its turn). watch: true makes you a watcher of it.',
    parameters: {
      type: 'object',
      properties: { sessionKey: { type: 'string' }, message: { type: 'string' }, watch: { type: 'boolean' } },
      required: ['sessionKey', 'message'],
    },
    async run(ctx, args) {
      const session = knownSession(deps, requireString(args, 'sessionKey'));
      const message = requireString(args, 'message', MESSAGE_MAX_CHARS);
      const watch = optionalBoolean(args, 'watch');
      const external = await deps.deliverExternal?.(session.key, message, { type: 'agent', id: ctx.caller });
      if (!external) {
        const m = deps.transcripts.append(session.key, {
          role: 'user',
          actorType: 'agent',
          actorId: ctx.caller,
          text: message,
        });
        deps.emit({ type: 'transcript:appended', message: m });
        void deps.engine.enqueue(session.key, { kind: 'user' });
      }
      // Registered only after a successful dispatch, on the session that actually received it
      // (watching oneself is refused by registerWatch: watched false).
      const watched = watch === true ? deps.state.registerWatch(ctx.caller, session.key) : false;
      return { status: 'delivered', sessionKey: session.key, ...(watch !== undefined ? { watched } : {}) };
    },
  };

  const spawn: ToolDefinition = {
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
      if (runtime === 'acp') {
        if (!deps.spawnAcp) throw new ToolError('ACP children are not available in this gateway');
        const profile = optionalString(args, 'profile', 64);
        return deps.spawnAcp({
          caller: ctx.caller,
          task,
          agentId,
          ...(label ? { label } : {}),
          ...(profile ? { profile } : {}),
          ...(timeoutMs ? { timeoutMs } : {}),
        });
      }
      const childKey = `agent:${agentId}:subagent:${randomUUID().slice(0, 8)}`;
      deps.store.create({ key: childKey, parentKey: ctx.caller, label: label ?? task.slice(0, 80) });
      deps.emit({ type: 'session:changed', sessionKey: childKey });
      // Before the child's first turn, so the parent's cursor is seeded.
      deps.state.record({
        sessionKey: childKey,
        kind: 'child_spawned',
        actorType: 'agent',
        actorId: ctx.caller,
        summary: 'child session spawned',
        watchers: [ctx.caller],
      });
      const m = deps.transcripts.append(childKey, {
        role: 'user',
        actorType: 'agent',
        actorId: ctx.caller,
        text: task,
      });
      deps.emit({ type: 'transcript:appended', message: m });
      const runId = randomUUID();
      const run = deps.runs.start(runId, childKey, 'queued', deps.now());
      deps.emit({ type: 'run:changed', run });
      void deps.engine.enqueue(childKey, {
        kind: 'task',
        spawn: { parentKey: ctx.caller, runId, ...(timeoutMs ? { timeoutMs } : {}) },
      });
      return { status: 'accepted', childSessionKey: childKey, runId, runtime: 'native' };
    },
  };

  const goalSet: ToolDefinition = {
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
        deps.emit({ type: 'session:changed', sessionKey: ctx.caller });
        return { goal };
      } catch (err) {
        throw new ToolError(err instanceof Error ? err.message : String(err));
      }
    },
  };

  const goalClear: ToolDefinition = {
    name: 'goal_clear',
    description: "Clear your session's goal.",
    parameters: { type: 'object', properties: {} },
    run(ctx) {
      const cleared = deps.goals.clear(ctx.caller, { type: 'agent', id: ctx.caller });
      deps.emit({ type: 'session:changed', sessionKey: ctx.caller });
      return { cleared };
    },
  };

  return [history, send, spawn, goalSet, goalClear];
}
