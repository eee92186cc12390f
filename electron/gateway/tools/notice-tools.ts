// session_notices: the caller's pending notices, on demand. Draining acknowledges exactly as a
// turn's drain does (same queue, same cursor rules), so an agent Sightline cannot prompt (one
// running in a person's terminal) can still hear what changed and reconcile.
import type { NoticeQueue } from '../types';
import type { ToolDefinition } from './registry';

export function sessionNoticesTool(deps: { notices: Pick<NoticeQueue, 'drain'> }): ToolDefinition {
  return {
    name: 'session_notices',
    description:
      'Your pending Sightline notices (e.g. a session you watch changed by another actor), oldest first. Returning them acknowledges them, as the start of a turn does.',
    parameters: { type: 'object', properties: {} },
    run(ctx) {
      const notices = deps.notices.drain(ctx.caller).map((e) => e.text);
      return { count: notices.length, notices };
    },
    format(details) {
      const { notices } = details as { notices: string[] };
      return notices.length ? notices.join('\n') : 'No pending notices.';
    },
  };
}
