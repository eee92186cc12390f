// Least privilege for the session tools (issue 29.2, contract `mcp.issue(key, { reach })`): a
// caller with a reach (an MCP credential's client) sees and acts on only the sessions in it. A
// caller without one (the gateway's own model turns, `tools.call`) is the person's own code.
import { REACH_RULES, type Reach } from '../../../shared/ipc/reach';
import { parseSessionKey } from '../../../shared/session-keys';
import type { SessionStore } from '../sessions/store';
import { ToolError, type ToolContext } from './registry';

/** Deeper than any spawn chain a fleet has; a loop in stored parents cannot hang the check. */
const MAX_DEPTH = 256;

/** Whether the caller's reach includes the session `key` (scoped to `agentId` for a bare key). */
export function inReach(sessions: SessionStore, ctx: ToolContext, key: string, agentId?: string): boolean {
  if (ctx.reach === undefined || ctx.reach === 'all') return true;
  const target = sessions.get(key, agentId);
  const targetKey = target?.key ?? parseSessionKey(key).key;
  if (targetKey === ctx.caller) return true;
  if (ctx.reach === 'agent')
    return (target?.agentId ?? agentId ?? parseSessionKey(key).agentId) === ctx.callerAgentId;
  // 'tree': the caller must be an ancestor of the target.
  let parent = target?.parentKey;
  for (let depth = 0; parent && depth < MAX_DEPTH; depth += 1) {
    if (parent === ctx.caller) return true;
    parent = sessions.get(parent)?.parentKey;
  }
  return false;
}

/** The error a call outside reach gets: it names the rule. */
export function outsideReach(reach: Reach, raw: string): ToolError {
  return new ToolError(`${raw} is outside this credential's reach (reach "${reach}": ${REACH_RULES[reach]})`);
}

export function checkReach(
  sessions: SessionStore,
  ctx: ToolContext,
  key: string,
  raw: string,
  agentId?: string,
): void {
  if (!inReach(sessions, ctx, key, agentId)) throw outsideReach(ctx.reach!, raw);
}
