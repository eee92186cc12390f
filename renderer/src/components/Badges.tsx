import type { RunStatus } from '../../../shared/ipc';
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

export function VersionBadge({ version }: { version: number }) {
  return (
    <span className="badge version" data-testid="state-version" title={EXPLAIN.version(version)}>
      v{version}
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

export function Kbd({ children }: { children: string }) {
  return <kbd className="kbd">{children}</kbd>;
}
