// The review being written: the line comments so far, an optional summary, and the verdict as a
// word. Sending makes ONE message from the person to the agent (worktrees:review), recorded as a
// human step-in, so a watcher of this session gets its one notice.
import { useState } from 'react';
import type { ReviewComment, ReviewInput } from '../../../../shared/ipc';
import { call, errorMessage } from '../../lib/api';
import { useUi } from '../../stores/ui';

type Verdict = NonNullable<ReviewInput['verdict']>;

const VERDICTS: { id: Verdict; label: string; cls: string }[] = [
  { id: 'request_changes', label: 'Request changes', cls: 'danger' },
  { id: 'approve', label: 'Approve', cls: 'primary' },
  { id: 'comment', label: 'Send comments', cls: '' },
];

function CommentList({ comments, onRemove }: { comments: ReviewComment[]; onRemove(index: number): void }) {
  if (comments.length === 0) return null;
  return (
    <ol className="review-comments" data-testid="review-comments">
      {comments.map((c, i) => (
        <li key={i}>
          <span className="mono">
            {c.path}:{c.line}
            {c.side === 'old' ? ' (old)' : ''}
          </span>{' '}
          {c.text}{' '}
          <button type="button" className="link" title="Remove this comment" onClick={() => onRemove(i)}>
            remove
          </button>
        </li>
      ))}
    </ol>
  );
}

export function ReviewBar({
  sessionKey,
  comments,
  onRemove,
  onSent,
}: {
  sessionKey: string;
  comments: ReviewComment[];
  onRemove(index: number): void;
  onSent(): void;
}) {
  const [summary, setSummary] = useState('');
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const flash = useUi((s) => s.flash);
  const empty = comments.length === 0 && !summary.trim();
  const send = async (verdict: Verdict) => {
    setSending(true);
    setError(null);
    try {
      await call('worktrees:review', {
        sessionKey,
        verdict,
        comments,
        ...(summary.trim() ? { summary: summary.trim() } : {}),
      });
      setSummary('');
      onSent();
      flash('Review sent to the agent as one message.');
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setSending(false);
    }
  };
  return (
    <div className="review-bar" data-testid="review-bar">
      <CommentList comments={comments} onRemove={onRemove} />
      <div className="inline">
        <input
          className="grow"
          data-testid="review-summary"
          aria-label="Review summary"
          maxLength={4000}
          value={summary}
          placeholder={
            comments.length ? 'Optional: a summary for the agent' : 'Review: click a line number to comment'
          }
          onChange={(e) => setSummary(e.target.value)}
        />
        {VERDICTS.map((v) => (
          <button
            key={v.id}
            type="button"
            className={v.cls}
            data-testid={`review-${v.id}`}
            disabled={sending || empty}
            onClick={() => void send(v.id)}
          >
            {v.label}
          </button>
        ))}
      </div>
      {error && (
        <p className="form-error" role="alert" data-testid="review-error">
          {error}
        </p>
      )}
    </div>
  );
}
