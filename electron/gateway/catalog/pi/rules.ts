// Pi (v3): every `message` entry whose role is `user` (a prompt, also partial slash commands) or
// `bashExecution` (a `!` command the person ran) is human (reference §4.4).
import { contentText, isoTime, message, obj, pathIs, reply, str, type RowRules } from '../kit/rules';

export const piRules: RowRules = {
  human(row) {
    if (row.type !== 'message') return false;
    const role = obj(row.message)?.role;
    return role === 'user' || role === 'bashExecution';
  },
  text(row) {
    const m = obj(row.message);
    if (!m) return undefined;
    if (m.role === 'bashExecution') return str(m.command);
    return contentText(m.content);
  },
  time(row) {
    return isoTime(row.timestamp) ?? isoTime(obj(row.message)?.timestamp);
  },
  visible(row) {
    const m = obj(row.message);
    if (piRules.human(row)) {
      const text = piRules.text(row);
      return message('user', m?.role === 'bashExecution' && text ? `!${text}` : text, piRules.time(row));
    }
    if (row.type !== 'message' || m?.role !== 'assistant') return undefined;
    return reply(m.content, piRules.time(row), 'toolCall', 'arguments');
  },
  scan: {
    capture(p) {
      return (
        pathIs(p, 'type') ||
        pathIs(p, 'timestamp') ||
        pathIs(p, 'message', 'role') ||
        pathIs(p, 'message', 'command') ||
        pathIs(p, 'message', 'content') ||
        pathIs(p, 'message', 'content', '#', 'type') ||
        pathIs(p, 'message', 'content', '#', 'text')
      );
    },
    text(p) {
      return (
        pathIs(p, 'message', 'content') ||
        pathIs(p, 'message', 'content', '#', 'text') ||
        pathIs(p, 'message', 'command')
      );
    },
  },
};
