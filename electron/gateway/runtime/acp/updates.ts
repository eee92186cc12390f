import type { RequestPermissionRequest, SessionUpdate, ToolCallContent } from '@agentclientprotocol/sdk';
import type { AcpDiff, AcpPermissionRequest, AcpToolStatus, AcpUpdate } from './types';

/**
 * Turns protocol session updates into Sightline's smaller AcpUpdate. Keeps the last title and
 * status of each tool call, because a protocol tool_call_update may carry only the changed field.
 */
export class UpdateMapper {
  private readonly tools = new Map<string, { title: string; status: AcpToolStatus }>();

  map(update: SessionUpdate): AcpUpdate | undefined {
    switch (update.sessionUpdate) {
      case 'agent_message_chunk':
        return update.content.type === 'text' ? { kind: 'message', text: update.content.text } : undefined;
      case 'agent_thought_chunk':
        return update.content.type === 'text' ? { kind: 'thought', text: update.content.text } : undefined;
      case 'tool_call': {
        const known = this.tools.has(update.toolCallId);
        const state = { title: update.title, status: update.status ?? 'pending' };
        this.tools.set(update.toolCallId, state);
        // A tool call announced again is an update of the one already shown: Claude Code's
        // adapter announces each call when it starts streaming and again with its whole input.
        const kind = known ? 'tool_call_update' : 'tool_call';
        return { kind, toolCallId: update.toolCallId, ...state, ...diffsOf(update.content) };
      }
      case 'tool_call_update': {
        const prev = this.tools.get(update.toolCallId);
        const state = {
          title: update.title ?? prev?.title ?? update.toolCallId,
          status: update.status ?? prev?.status ?? 'pending',
        };
        this.tools.set(update.toolCallId, state);
        return {
          kind: 'tool_call_update',
          toolCallId: update.toolCallId,
          ...state,
          ...diffsOf(update.content),
        };
      }
      case 'plan':
        return {
          kind: 'plan',
          entries: update.entries.map((e) => ({
            content: e.content,
            status: e.status,
            priority: e.priority,
          })),
        };
      default:
        // User echoes, modes, commands...: not part of what Sightline shows (usage: usage.ts).
        return undefined;
    }
  }

  forgetToolCalls(): void {
    this.tools.clear();
  }

  /** Title for a permission question about a tool call the agent may have announced earlier. */
  toolTitle(toolCallId: string): string | undefined {
    return this.tools.get(toolCallId)?.title;
  }
}

/** The `diff` items of a tool call's content (what an edit changed), if it has any. */
function diffsOf(content: ToolCallContent[] | null | undefined): { diffs?: AcpDiff[] } {
  const diffs: AcpDiff[] = [];
  for (const c of content ?? []) {
    if (c.type !== 'diff' || typeof c.path !== 'string' || typeof c.newText !== 'string') continue;
    diffs.push({
      path: c.path,
      oldText: typeof c.oldText === 'string' ? c.oldText : null,
      newText: c.newText,
    });
  }
  return diffs.length ? { diffs } : {};
}

let permissionCounter = 0;

export function toPermissionRequest(
  req: RequestPermissionRequest,
  mapper: UpdateMapper,
): AcpPermissionRequest {
  const toolCallId = req.toolCall.toolCallId;
  return {
    id: `acp-permission-${++permissionCounter}`,
    toolCallId,
    title: req.toolCall.title ?? mapper.toolTitle(toolCallId) ?? toolCallId,
    options: req.options.map((o) => ({ optionId: o.optionId, name: o.name, kind: o.kind })),
  };
}
