// A comment on one diff line, written before it is added to the review (nothing is sent yet).
import { useState } from 'react';

export function CommentBox({
  where,
  onAdd,
  onCancel,
}: {
  where: string;
  onAdd(text: string): void;
  onCancel(): void;
}) {
  const [text, setText] = useState('');
  const add = () => text.trim() && onAdd(text.trim());
  return (
    <div className="comment-box" data-testid="comment-box">
      <label className="small muted" htmlFor="comment-text">
        Comment on {where}
      </label>
      <textarea
        id="comment-text"
        data-testid="comment-text"
        rows={3}
        autoFocus
        maxLength={4000}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) add();
          if (e.key === 'Escape') onCancel();
        }}
      />
      <div className="inline">
        <button
          type="button"
          className="primary"
          data-testid="comment-add"
          disabled={!text.trim()}
          onClick={add}
        >
          Add to review
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
