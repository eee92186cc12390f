// What the open session needs from the person, above its tabs: a failed run with its reason
// (and Retry when the session can run its turn again). Opening a session also tells the gateway
// the person has seen it, so a finished run is no longer "done — unseen".
import { useEffect } from 'react';
import type { SessionView } from '../../../../shared/ipc';
import { call, errorMessage } from '../../lib/api';
import { useUi } from '../../stores/ui';
import { time } from '../../lib/format';
import { AUTH_REQUIRED, AuthPanel } from '../agents/AuthPanel';

/** Seen: when the session opens, and whenever it finishes while open and the page is visible. */
export function useMarkSeen(s: SessionView | undefined): void {
  const key = s?.key;
  const unseen = s?.status.status === 'done_unseen';
  useEffect(() => {
    if (!key) return;
    const mark = () => {
      if (document.visibilityState === 'visible')
        void call('sessions:seen', { sessionKey: key }).catch(() => {});
    };
    mark();
    document.addEventListener('visibilitychange', mark);
    return () => document.removeEventListener('visibilitychange', mark);
  }, [key, unseen]);
}

export function retry(sessionKey: string): void {
  call('runs:retry', { sessionKey }).then(
    ({ retried }) => {
      if (!retried) useUi.getState().setError('This run cannot be retried (it is no longer the failed one).');
    },
    (err: unknown) => useUi.getState().setError(errorMessage(err)),
  );
}

export function StatusBanner({ s }: { s: SessionView }) {
  if (s.status.status !== 'failed') return null;
  // The gateway's runner answers whether this session can run its turn again (native: yes; an
  // ACP child only while its agent lives; adopted and outside sessions: no).
  const retryable = s.status.retryable === true;
  const auth = s.status.reason?.includes(AUTH_REQUIRED) === true;
  return (
    <div className="status-banner failed" role="alert" data-testid="failure-banner">
      <div>
        <strong>The last run failed</strong>
        {s.status.since > 0 && <span className="muted small"> at {time(s.status.since)}</span>}:{' '}
        <span data-testid="failure-reason">{s.status.reason}</span>
      </div>
      {/* One Retry: with an auth panel it comes after the ways to log in, else here. */}
      {auth ? (
        <AuthPanel sessionKey={s.key} {...(retryable ? { onRetry: () => retry(s.key) } : {})} />
      ) : (
        retryable && (
          <button type="button" data-testid="retry-run" onClick={() => retry(s.key)}>
            Retry
          </button>
        )
      )}
    </div>
  );
}
