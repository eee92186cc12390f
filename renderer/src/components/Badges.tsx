import type { RunStatus } from '../../../shared/ipc';

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

export function VersionBadge({ version }: { version: number }) {
  return (
    <span
      className="badge version"
      data-testid="state-version"
      title="State version (head of the signal log)"
    >
      v{version}
    </span>
  );
}

export function NoticeBadge({ count }: { count: number }) {
  if (count === 0) return null;
  return (
    <span
      className="badge notice"
      data-testid="notice-badge"
      title={`${count} pending notice${count === 1 ? '' : 's'}`}
    >
      {count} notice{count === 1 ? '' : 's'}
    </span>
  );
}

export function AlertBadge({ summary }: { summary: string }) {
  return (
    <span className="badge alert" data-testid="alert-badge" title={summary}>
      upstream missing
    </span>
  );
}

export function Kbd({ children }: { children: string }) {
  return <kbd className="kbd">{children}</kbd>;
}
