// Review comments become one message from the person to the agent: the verdict is words in it
// ("Request changes", "Approve"), not hidden state, and the comments name file and line.
import type { ReviewInput } from '../../../shared/ipc/worktrees';
import { invalidArgument } from '../errors';

const VERDICT = { approve: 'Approve', request_changes: 'Request changes', comment: 'Comments' } as const;
const MAX_COMMENTS = 200;
const MAX_TEXT = 4000;

export function reviewMessage(input: ReviewInput): string {
  if (!input || typeof input !== 'object') throw invalidArgument('review must be an object');
  const comments = Array.isArray(input.comments) ? input.comments : [];
  if (comments.length > MAX_COMMENTS) throw invalidArgument(`at most ${MAX_COMMENTS} comments in one review`);
  const summary = typeof input.summary === 'string' ? input.summary.trim().slice(0, MAX_TEXT) : '';
  if (comments.length === 0 && !summary) throw invalidArgument('a review needs a comment or a summary');
  const verdict = VERDICT[input.verdict ?? 'comment'];
  if (!verdict) throw invalidArgument('verdict must be approve, request_changes or comment');
  const lines = [`Review of your changes: ${verdict}.`];
  if (summary) lines.push('', summary);
  for (const c of comments) {
    if (!c || typeof c.path !== 'string' || c.path === '' || !Number.isInteger(c.line) || c.line < 1)
      throw invalidArgument('each comment needs a path and a line (1 or more)');
    if (typeof c.text !== 'string' || c.text.trim() === '')
      throw invalidArgument('each comment needs a text');
    const where = `${c.path}:${c.line}${c.side === 'old' ? ' (old side)' : ''}`;
    lines.push('', `${where}`, c.text.trim().slice(0, MAX_TEXT));
  }
  return lines.join('\n');
}
