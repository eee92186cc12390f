// session_status (with changesSince reconciliation) and sessions_list.
import { parseSessionKey } from '../../../shared/session-keys';
import type { SessionStore } from '../sessions/store';
import type { StateCore } from '../state/session-state';
import { checkReach, inReach } from './reach';
import { optionalInteger, optionalString, requireString, ToolError, type ToolDefinition } from './registry';

/** Only these payload fields reach a model: small, non-content facts. */
const PAYLOAD_FIELDS = ['outcome', 'channel', 'turns'] as const;

export interface SessionToolDeps {
  sessions: SessionStore;
  state: StateCore;
  /** Extra facts about a session (run status, goal) from the runtime, when it is there. */
  describe?: (key: string) => Record<string, unknown>;
  /** Addition: a caller read a session's status (the notice history records reconciliations). */
  onStatus?: (caller: string, target: string, stateVersion: number, changesSince: number | undefined) => void;
}

function filterPayload(payload: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!payload) return undefined;
  const out: Record<string, unknown> = {};
  for (const f of PAYLOAD_FIELDS) if (payload[f] !== undefined) out[f] = payload[f];
  return Object.keys(out).length ? out : undefined;
}

export function sessionStatusTool(deps: SessionToolDeps): ToolDefinition {
  return {
    name: 'session_status',
    description:
      'Status of a session, with its stateVersion. Pass changesSince (a state version, e.g. from a stale-state notice) to get the exact state changes after it, oldest first.',
    parameters: {
      type: 'object',
      properties: {
        sessionKey: { type: 'string', description: 'e.g. agent:main:subagent:abc' },
        changesSince: { type: 'integer', minimum: 0 },
        limit: { type: 'integer', minimum: 1, maximum: 200 },
        agentId: { type: 'string', description: 'Agent scope for a bare key such as "global"' },
      },
      required: ['sessionKey'],
    },
    run(ctx, args) {
      const raw = requireString(args, 'sessionKey');
      const since = args.changesSince;
      if (since !== undefined && (typeof since !== 'number' || !Number.isSafeInteger(since) || since < 0)) {
        throw new ToolError('changesSince must be a non-negative integer');
      }
      // The requested limit is clamped to 1..200 (spec), not refused.
      const rawLimit = args.limit;
      if (rawLimit !== undefined && (typeof rawLimit !== 'number' || !Number.isFinite(rawLimit))) {
        throw new ToolError('limit must be a number');
      }
      const limit = rawLimit === undefined ? undefined : Math.min(200, Math.max(1, Math.floor(rawLimit)));
      const parsed = parseSessionKey(raw);
      const agentId =
        parsed.agentId ?? (optionalString(args, 'agentId', 64)?.toLowerCase() || ctx.callerAgentId);
      checkReach(deps.sessions, ctx, parsed.key, raw, agentId);
      const session = deps.sessions.get(parsed.key, agentId);
      const stateVersion = deps.state.version(parsed.key, agentId);
      if (!session && stateVersion === 0) throw new ToolError(`Unknown sessionKey: ${raw}`);
      const details: Record<string, unknown> = {
        sessionKey: parsed.key,
        agentId,
        kind: parsed.kind,
        ...(session?.label ? { label: session.label } : {}),
        ...(session?.parentKey ? { parentKey: session.parentKey } : {}),
        ...(session?.archived ? { archived: true } : {}),
        ...(deps.describe?.(parsed.key) ?? {}),
        stateVersion,
      };
      if (since !== undefined) {
        const c = deps.state.changesSince(parsed.key, since, {
          agentId,
          ...(limit !== undefined ? { limit } : {}),
        });
        details.stateVersion = c.stateVersion;
        details.stateChanges = {
          events: c.events.map(({ payload, ...rest }) => {
            const filtered = filterPayload(payload);
            return filtered ? { ...rest, payload: filtered } : rest;
          }),
          truncated: c.truncated,
          earliestAvailableSequence: c.earliestAvailableSequence,
          historyGap: c.historyGap,
        };
      }
      deps.onStatus?.(ctx.caller, parsed.key, details.stateVersion as number, since);
      return details;
    },
  };
}

export function sessionsListTool(deps: SessionToolDeps): ToolDefinition {
  return {
    name: 'sessions_list',
    description: 'List the sessions of the fleet you may reach, with their state versions.',
    parameters: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 1000 } } },
    run(ctx, args) {
      const limit = optionalInteger(args, 'limit', 1, 1000) ?? 1000;
      const sessions = deps.sessions
        .list()
        .filter((s) => inReach(deps.sessions, ctx, s.key, s.agentId))
        .slice(0, limit)
        .map((s) => {
          const stateVersion = deps.state.version(s.key, s.agentId);
          return {
            key: s.key,
            agentId: s.agentId,
            kind: parseSessionKey(s.key).kind,
            ...(s.label ? { label: s.label } : {}),
            ...(s.parentKey ? { parentKey: s.parentKey } : {}),
            ...(s.archived ? { archived: true } : {}),
            updatedAt: s.updatedAt,
            ...(deps.describe?.(s.key) ?? {}),
            ...(stateVersion > 0 ? { stateVersion } : {}),
          };
        });
      return { count: sessions.length, sessions };
    },
  };
}
