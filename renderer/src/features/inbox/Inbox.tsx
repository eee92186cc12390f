import type { InboxItem } from '../../../../shared/ipc';
import { useInbox } from '../../stores/inbox';
import { usePermissions } from '../../stores/permissions';
import { PermissionItem } from '../acp/PermissionPrompt';
import { useUi } from '../../stores/ui';
import { errorMessage } from '../../lib/api';
import { time } from '../../lib/format';
import { SessionName } from '../../components/SessionName';
import { EXPLAIN } from '../../lib/explain';

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
      {item.type === 'notice' ? (
        <>
          <div className="inbox-title">
            Notice for <SessionName sessionKey={item.sessionKey} />
            {item.targetKey && (
              <>
                {' '}
                about <SessionName sessionKey={item.targetKey} />
              </>
            )}
          </div>
          <blockquote className="notice-text" data-testid="inbox-notice-text" title={EXPLAIN.notice}>
            {item.text}
          </blockquote>
        </>
      ) : (
        <>
          <div className="inbox-title">
            <span className="badge alert">upstream missing</span> <SessionName sessionKey={item.sessionKey} />
          </div>
          <p className="small">
            {item.alert.summary} · {time(item.alert.occurredAt)} — the upstream link was removed.
          </p>
        </>
      )}
      <div className="actions">
        <button
          type="button"
          data-testid="inbox-open"
          onClick={() => openSession(item.sessionKey, 'transcript')}
        >
          Open {item.type === 'notice' ? 'watcher' : 'session'}
        </button>
        {item.type === 'notice' && item.targetKey && (
          <button
            type="button"
            data-testid="inbox-open-target"
            onClick={() => openSession(item.targetKey!, 'timeline')}
          >
            Open changed session
          </button>
        )}
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
          onClick={() => dismiss(item.id).catch(fail)}
        >
          Dismiss
        </button>
      </div>
    </li>
  );
}

export function Inbox() {
  const items = useInbox((s) => s.items);
  const loaded = useInbox((s) => s.loaded);
  const requests = usePermissions((s) => s.requests);
  return (
    <section className="page" data-testid="inbox" data-ready={loaded ? 'true' : 'false'}>
      <h1>Inbox</h1>
      <p className="muted">
        Permission requests from ACP agents, pending notices (a watcher will reconcile on its next turn) and
        upstream alerts.
      </p>
      {loaded && items.length === 0 && requests.length === 0 && (
        <p className="empty-note">Nothing needs you right now.</p>
      )}
      <ul className="inbox-list" aria-live="polite">
        {requests.map((r) => (
          <PermissionItem key={r.id} request={r} />
        ))}
        {items.map((i) => (
          <Item key={i.id} item={i} />
        ))}
      </ul>
    </section>
  );
}
