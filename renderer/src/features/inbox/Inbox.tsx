// The Inbox: the queue of what needs the person (permission requests, failed runs, upstream
// alerts, worktree overlaps, finished runs not seen yet) and the history of what each watcher was told and when it reconciled.
import { useEffect } from 'react';
import type { InboxItem } from '../../../../shared/ipc';
import { useInbox } from '../../stores/inbox';
import { usePermissions } from '../../stores/permissions';
import { PermissionItem } from '../acp/PermissionPrompt';
import { useUi } from '../../stores/ui';
import { usePreferences } from '../../stores/preferences';
import { errorMessage } from '../../lib/api';
import { time } from '../../lib/format';
import { SessionName } from '../../components/SessionName';
import { Checkbox } from '../../components/Checkbox';
import { STATUS_LOOK } from '../../components/Badges';
import { retry } from '../session/StatusBanner';
import { InboxHistory } from './InboxHistory';
import { OverlapItem } from '../worktrees/OverlapItem';
import { toolName } from '../fleet/tree';

/** What the item is about, in words: a failed run, a vanished upstream, an overlap, a finished run. */
function ItemBody({ item }: { item: InboxItem }) {
  if (item.type === 'worktree_overlap') return <OverlapItem item={item} />;
  if (item.type === 'failed')
    return (
      <>
        <div className="inbox-title">
          <span className="badge status status-failed">
            {STATUS_LOOK.failed.icon} {item.outcome === 'timeout' ? 'timed out' : 'run failed'}
          </span>{' '}
          <SessionName sessionKey={item.sessionKey} />
        </div>
        <p className="small">
          <span data-testid="inbox-failure-reason">{item.reason}</span>{' '}
          <span className="muted">· {time(item.endedAt)}</span>
        </p>
      </>
    );
  if (item.type === 'done_unseen')
    return (
      <div className="inbox-title">
        <span className="badge status status-done_unseen">
          {STATUS_LOOK.done_unseen.icon} {STATUS_LOOK.done_unseen.label}
        </span>{' '}
        <SessionName sessionKey={item.sessionKey} />{' '}
        <span className="small muted">· finished {time(item.endedAt)}</span>
      </div>
    );
  return (
    <>
      <div className="inbox-title">
        <span className="badge alert">upstream missing</span> <SessionName sessionKey={item.sessionKey} />
      </div>
      <p className="small" data-testid="inbox-upstream-source">
        {/* What vanished and from which tool, in words; the event's summary is on hover. */}
        <span title={item.alert.summary}>{toolName(item.alert.channel ?? item.provider ?? '')}</span>
        {item.source ? (
          <>
            {' '}
            source <code className="mono">{item.source}</code>
          </>
        ) : (
          ' session'
        )}{' '}
        is gone (not found in three checks, {time(item.alert.occurredAt)}); the upstream link was removed.
      </p>
    </>
  );
}

function Item({ item }: { item: InboxItem }) {
  const openSession = useUi((s) => s.openSession);
  const setError = useUi((s) => s.setError);
  const dismiss = useInbox((s) => s.dismiss);
  const readopt = useInbox((s) => s.readopt);
  const fail = (err: unknown) => setError(errorMessage(err));

  return (
    <li
      className={`inbox-item ${item.type}`}
      data-testid="inbox-item"
      data-type={item.type}
      data-session-key={item.sessionKey}
    >
      <ItemBody item={item} />
      <div className="actions">
        {item.type === 'failed' && item.retryable && (
          <button
            type="button"
            className="primary"
            data-testid="inbox-retry"
            onClick={() => retry(item.sessionKey)}
          >
            Retry
          </button>
        )}
        <button
          type="button"
          data-testid="inbox-open"
          onClick={() => openSession(item.sessionKey, 'transcript')}
        >
          Open session
        </button>
        {item.type === 'upstream_missing' && item.provider && item.threadId && (
          <button
            type="button"
            data-testid="inbox-readopt"
            onClick={() =>
              readopt(item.provider!, item.threadId!, item.hostId).then((k) => openSession(k), fail)
            }
          >
            Re-adopt
          </button>
        )}
        <button
          type="button"
          className="quiet"
          data-testid="inbox-dismiss"
          onClick={() => dismiss(item).catch(fail)}
        >
          {item.type === 'done_unseen' ? 'Mark seen' : 'Dismiss'}
        </button>
      </div>
    </li>
  );
}

/** The person's switch for the one optional category: finished runs they have not seen. */
function DoneUnseenToggle() {
  const on = usePreferences((s) => s.prefs.inbox.doneUnseen);
  const setPrefs = usePreferences((s) => s.set);
  const load = useInbox((s) => s.load);
  const setError = useUi((s) => s.setError);
  const toggle = (doneUnseen: boolean) =>
    setPrefs({ inbox: { doneUnseen } })
      .then(load)
      .catch((err: unknown) => setError(errorMessage(err)));
  return (
    <Checkbox className="small inbox-category" testId="inbox-show-done" checked={on} onChange={toggle}>
      Also list finished runs I have not seen (done — unseen)
    </Checkbox>
  );
}

function Queue() {
  const items = useInbox((s) => s.items);
  const loaded = useInbox((s) => s.loaded);
  const requests = usePermissions((s) => s.requests);
  return (
    <>
      <p className="muted">
        What waits for you: agents asking for permission, runs that failed, adopted sessions whose upstream is
        gone, and finished runs you have not opened yet. Press <kbd className="kbd">n</kbd> to go to the next
        one.
      </p>
      <DoneUnseenToggle />
      {loaded && items.length === 0 && requests.length === 0 && (
        <p className="empty-note" data-testid="inbox-empty">
          Nothing needs you right now. Notices for watchers are in the History tab.
        </p>
      )}
      <ul className="inbox-list" aria-live="polite">
        {requests.map((r) => (
          <PermissionItem key={r.id} request={r} />
        ))}
        {items.map((i) => (
          <Item key={i.id} item={i} />
        ))}
      </ul>
    </>
  );
}

export function Inbox() {
  const loaded = useInbox((s) => s.loaded);
  const tab = useInbox((s) => s.tab);
  const setTab = useInbox((s) => s.setTab);
  const count = useInbox((s) => s.items.length) + usePermissions((s) => s.requests.length);
  const setError = useUi((s) => s.setError);
  useEffect(() => {
    if (useInbox.getState().tab === 'history')
      useInbox
        .getState()
        .loadHistory()
        .catch((err: unknown) => setError(errorMessage(err)));
  }, [setError]);
  return (
    <section className="page" data-testid="inbox" data-ready={loaded ? 'true' : 'false'}>
      <h1>Inbox</h1>
      <div className="tabs" role="tablist" aria-label="Inbox">
        <button
          type="button"
          role="tab"
          aria-selected={tab === 'queue'}
          className={tab === 'queue' ? 'tab active' : 'tab'}
          data-testid="inbox-tab-queue"
          onClick={() => setTab('queue')}
        >
          Needs you{count > 0 ? ` (${count})` : ''}
        </button>
        <button
          type="button"
          role="tab"
          aria-selected={tab === 'history'}
          className={tab === 'history' ? 'tab active' : 'tab'}
          data-testid="inbox-tab-history"
          onClick={() => setTab('history')}
        >
          History
        </button>
      </div>
      <div role="tabpanel">{tab === 'queue' ? <Queue /> : <InboxHistory />}</div>
    </section>
  );
}
