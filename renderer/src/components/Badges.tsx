import type { RunStatus, SessionStatus, SessionStatusView } from '../../../shared/ipc';
import { EXPLAIN } from '../lib/explain';

const RUN_LABEL: Record<RunStatus | 'none', string> = {
  none: 'never ran',
  queued: 'queued',
  running: 'running',
  idle: 'idle',
  failed: 'failed',
  cancelled: 'cancelled',
};

export function RunBadge({ status }: { status: RunStatus | 'none' }) {
  return (
    <span
      className={`badge run run-${status}`}
      data-testid="run-status"
      data-status={status}
      title={`Run: ${RUN_LABEL[status]}`}
    >
      {status === 'running' ? '● ' : ''}
      {RUN_LABEL[status]}
    </span>
  );
}

export function NoticeBadge({ count }: { count: number }) {
  if (count === 0) return null;
  return (
    <span className="badge notice" data-testid="notice-badge" title={EXPLAIN.pendingNotices(count)}>
      {count} notice{count === 1 ? '' : 's'}
    </span>
  );
}

export function AlertBadge({ summary }: { summary: string }) {
  return (
    <span className="badge alert" data-testid="alert-badge" title={`${summary}. ${EXPLAIN.upstream}`}>
      upstream missing
    </span>
  );
}

/** A key to press (styled as a key cap, never as a count). */
export function Kbd({ children, title }: { children: string; title?: string }) {
  return (
    <kbd className="kbd" title={title ?? `Shortcut: ${children}`}>
      {children}
    </kbd>
  );
}

/** Icon + word per status: they stay apart without colour (colour only adds to them). */
export const STATUS_LOOK: Record<SessionStatus, { icon: string; label: string }> = {
  waiting: { icon: '▲', label: 'waiting for you' },
  failed: { icon: '✕', label: 'failed' },
  running: { icon: '◐', label: 'running' },
  done_unseen: { icon: '✓', label: 'done — unseen' },
  idle: { icon: '○', label: 'idle' },
};

export function StatusBadge({ status }: { status: SessionStatusView }) {
  const look = STATUS_LOOK[status.status];
  const title = status.reason ? `${look.label}: ${status.reason}` : look.label;
  return (
    <span
      className={`badge status status-${status.status}`}
      data-testid="session-status"
      data-status={status.status}
      title={title}
    >
      <span className="status-icon" aria-hidden>
        {look.icon}
      </span>{' '}
      {look.label}
    </span>
  );
}
