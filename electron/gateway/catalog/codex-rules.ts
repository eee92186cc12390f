// Codex CLI: only `event_msg` rows of type `user_message` are human (reference §2.4). Injected
// context (AGENTS.md, environment context) exists only as `response_item` rows, which never count;
// legacy rows with a `kind` other than "plain" are context too.
import { isoTime, obj, pathIs, str, type RowRules } from './rules';

export const codexRules: RowRules = {
  human(row) {
    if (row.type !== 'event_msg') return false;
    const p = obj(row.payload);
    if (!p || p.type !== 'user_message') return false;
    return p.kind === undefined || p.kind === null || p.kind === 'plain';
  },
  text(row) {
    return str(obj(row.payload)?.message);
  },
  time(row) {
    return isoTime(row.timestamp);
  },
  scan: {
    capture(p) {
      return (
        pathIs(p, 'type') ||
        pathIs(p, 'timestamp') ||
        pathIs(p, 'payload', 'type') ||
        pathIs(p, 'payload', 'kind') ||
        pathIs(p, 'payload', 'message')
      );
    },
    text(p) {
      return pathIs(p, 'payload', 'message');
    },
  },
};

/** The request part of a prompt sent by the VS Code extension (Codex's own preview does this). */
export function codexRequestText(message: string): string {
  const marker = '## My request for Codex:';
  const at = message.indexOf(marker);
  return (at >= 0 ? message.slice(at + marker.length) : message).trim();
}
