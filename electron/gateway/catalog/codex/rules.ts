// Codex CLI: which rollout rows are a person's prompt (README "Codex rows by version"). Codex
// itself decides this from its events (model-facing `response_item`s only when there is no event):
// legacy rollouts carry the prompt as `event_msg` `user_message`, paginated rollouts (from about
// 0.148, `session_meta.history_mode: "paginated"`) as `event_msg` `item_completed` whose item is a
// `UserMessage`. A rollout is one or the other, so counting both kinds never counts a prompt twice.
// `response_item` user messages never count: they mirror the prompt and also carry injected
// context (AGENTS.md, environment context, skills), which is not the person.
import {
  contentText,
  isoTime,
  message,
  obj,
  pathIs,
  str,
  toolCall,
  type Row,
  type RowRules,
} from '../kit/rules';

function userItem(row: Row): Row | undefined {
  if (row.type !== 'event_msg') return undefined;
  const p = obj(row.payload);
  if (p?.type !== 'item_completed') return undefined;
  const item = obj(p.item);
  return item?.type === 'UserMessage' ? item : undefined;
}

export const codexRules: RowRules = {
  human(row) {
    if (userItem(row)) return true;
    if (row.type !== 'event_msg') return false;
    const p = obj(row.payload);
    if (!p || p.type !== 'user_message') return false;
    // Early rollouts (2025) tagged injected context as a `user_message` with another `kind`.
    return p.kind === undefined || p.kind === null || p.kind === 'plain';
  },
  // Codex dedupes completed user items by (turn, item id) when it rebuilds turns; so do we.
  identity(row) {
    const item = userItem(row);
    const id = str(item?.id);
    return id === undefined ? undefined : `${str(obj(row.payload)?.turn_id) ?? ''}:${id}`;
  },
  text(row) {
    const item = userItem(row);
    if (item) return contentText(item.content);
    return str(obj(row.payload)?.message);
  },
  time(row) {
    return isoTime(row.timestamp);
  },
  // Prompts and replies from the events (legacy `agent_message`, paginated `AgentMessage` items);
  // tool calls from the `response_item`s, which both modes keep.
  visible(row) {
    const at = codexRules.time(row);
    if (codexRules.human(row)) return message('user', codexRules.text(row), at);
    const p = obj(row.payload);
    if (row.type === 'event_msg') {
      if (p?.type === 'agent_message') return message('assistant', str(p.message), at);
      const item = obj(p?.item);
      if (p?.type === 'item_completed' && item?.type === 'AgentMessage')
        return message('assistant', contentText(item.content), at);
      return undefined;
    }
    if (row.type !== 'response_item' || !p) return undefined;
    if (p.type === 'function_call')
      return message('assistant', '', at, [toolCall(p.call_id, p.name, p.arguments)]);
    if (p.type === 'custom_tool_call')
      return message('assistant', '', at, [toolCall(p.call_id, p.name, p.input)]);
    if (p.type === 'local_shell_call')
      return message('assistant', '', at, [toolCall(p.call_id, 'shell', p.action)]);
    return undefined;
  },
  scan: {
    capture(p) {
      return (
        pathIs(p, 'type') ||
        pathIs(p, 'timestamp') ||
        pathIs(p, 'payload', 'type') ||
        pathIs(p, 'payload', 'kind') ||
        pathIs(p, 'payload', 'message') ||
        pathIs(p, 'payload', 'turn_id') ||
        pathIs(p, 'payload', 'item', 'type') ||
        pathIs(p, 'payload', 'item', 'id') ||
        pathIs(p, 'payload', 'item', 'content', '#', 'text')
      );
    },
    text(p) {
      return pathIs(p, 'payload', 'message') || pathIs(p, 'payload', 'item', 'content', '#', 'text');
    },
  },
};

/** The request part of a prompt sent by the VS Code extension (Codex's own preview does this). */
export function codexRequestText(message: string): string {
  const marker = '## My request for Codex:';
  const at = message.indexOf(marker);
  return (at >= 0 ? message.slice(at + marker.length) : message).trim();
}
