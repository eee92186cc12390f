import { useState } from 'react';
import { useTranscript } from '../../stores/transcript';
import { useUi } from '../../stores/ui';
import { errorMessage } from '../../lib/api';
import { LIMITS } from '../../../../shared/ipc/limits';

export function Composer() {
  const [text, setText] = useState('');
  const sending = useTranscript((s) => s.sending);
  const send = useTranscript((s) => s.send);
  const setError = useUi((s) => s.setError);

  const submit = async () => {
    const t = text.trim();
    if (!t || sending) return;
    try {
      await send(t);
      setText('');
    } catch (err) {
      setError(errorMessage(err));
    }
  };

  return (
    <form
      className="composer"
      data-testid="composer"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <label htmlFor="composer-text" className="small muted">
        Step in as a human — watchers of this session get one notice and reconcile.
      </label>
      <div className="composer-row">
        <textarea
          id="composer-text"
          data-testid="composer-input"
          value={text}
          maxLength={LIMITS.messageText}
          rows={2}
          placeholder="Message this session (Enter sends, Shift+Enter for a new line)"
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey) {
              e.preventDefault();
              void submit();
            }
          }}
        />
        <button
          type="submit"
          className="primary"
          data-testid="composer-send"
          disabled={sending || !text.trim()}
        >
          {sending ? 'Sending…' : 'Send'}
        </button>
      </div>
    </form>
  );
}
