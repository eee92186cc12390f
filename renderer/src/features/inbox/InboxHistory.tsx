// Inbox → History: what each watcher was told and when it reconciled. Notices are drained within a
// second, so this is where the core's work stays visible: every notice a watcher's turn read,
// the changesSince it named, and the watcher's next session_status on that session (the version
// it returned, and when) — or "not reconciled yet". Notices still queued head the list.
import type { NoticeDelivery, PendingNotice } from '../../../../shared/ipc';
import { useInbox } from '../../stores/inbox';
import { useUi } from '../../stores/ui';
import { time } from '../../lib/format';
import { EXPLAIN } from '../../lib/explain';
import { SessionName } from '../../components/SessionName';

function Pending({ p }: { p: PendingNotice }) {
  const openSession = useUi((s) => s.openSession);
  return (
    <li className="inbox-item history pending" data-testid="history-pending" data-watcher={p.watcher}>
      <div className="inbox-title">
        <span className="badge notice">queued</span> for <SessionName sessionKey={p.watcher} /> about{' '}
        <SessionName sessionKey={p.target} /> — its next turn reads it
      </div>
      <blockquote className="notice-text" title={EXPLAIN.notice}>
        {p.text}
      </blockquote>
      <div className="actions">
        <button type="button" onClick={() => openSession(p.watcher, 'transcript')}>
          Open watcher
        </button>
        <button type="button" onClick={() => openSession(p.target, 'timeline')}>
          Open changed session
        </button>
      </div>
    </li>
  );
}

function Delivered({ d }: { d: NoticeDelivery }) {
  const openSession = useUi((s) => s.openSession);
  return (
    <li
      className="inbox-item history"
      data-testid="history-item"
      data-watcher={d.watcher}
      data-target={d.target}
      data-reconciled={d.reconciled ? 'true' : 'false'}
    >
      <div className="inbox-title">
        <SessionName sessionKey={d.watcher} /> was told about <SessionName sessionKey={d.target} />{' '}
        <span className="muted small">at {time(d.drainedAt)}</span>
      </div>
      <blockquote className="notice-text" title={EXPLAIN.notice} data-testid="history-notice-text">
        {d.text}
      </blockquote>
      <p className="small" data-testid="history-reconciled">
        {d.reconciled ? (
          <>
            {/* Log positions (#), shared by all sessions: never shown as the session's version. */}
            <span className="badge ok">reconciled</span> session_status changesSince{' '}
            {d.reconciled.changesSince ?? '—'} read its changes up to{' '}
            <strong title={EXPLAIN.position}>#{d.reconciled.version}</strong> at {time(d.reconciled.at)}
          </>
        ) : (
          <>
            <span className="badge notice">not reconciled yet</span> the watcher has not called session_status
            on it since (it named changesSince {d.changesSince})
          </>
        )}
      </p>
      <div className="actions">
        <button
          type="button"
          data-testid="history-open-watcher"
          onClick={() => openSession(d.watcher, 'transcript')}
        >
          Open watcher
        </button>
        <button type="button" onClick={() => openSession(d.target, 'timeline')}>
          Open changed session
        </button>
      </div>
    </li>
  );
}

export function InboxHistory() {
  const history = useInbox((s) => s.history);
  const loadOlder = useInbox((s) => s.loadOlderHistory);
  return (
    <div data-testid="inbox-history" data-ready={history.loaded ? 'true' : 'false'}>
      <p className="muted">
        Each notice a watcher read (its turn drained it), and the watcher&apos;s next session_status call on
        that session: how far into its signal log it read (#, a position in the log all sessions share) and
        when.
      </p>
      {history.loaded && history.pending.length === 0 && history.delivered.length === 0 && (
        <p className="empty-note">No watcher has been told anything yet.</p>
      )}
      <ul className="inbox-list">
        {history.pending.map((p) => (
          <Pending key={p.id} p={p} />
        ))}
        {history.delivered.map((d) => (
          <Delivered key={d.id} d={d} />
        ))}
      </ul>
      {history.hasMore && (
        <button type="button" className="link" onClick={() => void loadOlder()}>
          Older notices
        </button>
      )}
    </div>
  );
}
