// A permission question from an ACP child (its title and the agent's own options as buttons), or
// from an agent asking to send into an adopted upstream session (`requestedBy`).
// Shown as a banner in the child's session view and as an item in the inbox; answering either
// one answers both (the resolved push removes it everywhere).
import type { PermissionRequestView } from '../../../../shared/ipc';
import { usePermissions, useSessionAskedOthers, useSessionPermissions } from '../../stores/permissions';
import { useUi } from '../../stores/ui';
import { errorMessage } from '../../lib/api';
import { shortKey, time, visible } from '../../lib/format';

function optionClass(kind: string): string {
  if (kind.startsWith('allow')) return 'primary';
  if (kind.startsWith('reject')) return 'danger';
  return '';
}

function Options({ request }: { request: PermissionRequestView }) {
  const respond = usePermissions((s) => s.respond);
  const busy = usePermissions((s) => s.answering.includes(request.id));
  const setError = useUi((s) => s.setError);
  const answer = (optionId: string | undefined) =>
    respond(request.id, optionId).catch((err: unknown) => setError(errorMessage(err)));
  const hasReject = request.options.some((o) => o.kind.startsWith('reject'));
  return (
    <div className="permission-options" role="group" aria-label="Answer">
      {request.options.map((o) => (
        <button
          key={o.optionId}
          type="button"
          className={optionClass(o.kind)}
          disabled={busy}
          data-testid="permission-option"
          data-kind={o.kind}
          data-option-id={o.optionId}
          onClick={() => void answer(o.optionId)}
        >
          {o.name}
        </button>
      ))}
      {!hasReject && (
        <button
          type="button"
          className="danger"
          disabled={busy}
          data-testid="permission-reject"
          onClick={() => void answer(undefined)}
        >
          Reject
        </button>
      )}
    </div>
  );
}

/** Inbox item: which child asks, what, and a way to open it. */
export function PermissionItem({ request }: { request: PermissionRequestView }) {
  const openSession = useUi((s) => s.openSession);
  const titleId = `permission-${request.id}-title`;
  return (
    <li
      className="inbox-item permission"
      data-testid="inbox-item"
      data-type="permission"
      data-session-key={request.sessionKey}
      data-request-id={request.id}
      aria-labelledby={titleId}
    >
      <div className="inbox-title" id={titleId}>
        <span className="badge permission">permission</span>{' '}
        {request.requestedBy ? (
          <>
            <strong className="mono" data-testid="permission-requested-by">
              {shortKey(request.requestedBy)}
            </strong>{' '}
            asks about <strong className="mono">{shortKey(request.sessionKey)}</strong>:{' '}
          </>
        ) : (
          <>
            <strong className="mono">{shortKey(request.sessionKey)}</strong> asks:{' '}
          </>
        )}
        <span data-testid="permission-title">{visible(request.title)}</span>
      </div>
      <p className="small muted">Asked at {time(request.createdAt)}. Only you can answer it.</p>
      <div className="actions">
        <Options request={request} />
        <button
          type="button"
          data-testid="inbox-open"
          onClick={() => openSession(request.sessionKey, 'transcript')}
        >
          Open session
        </button>
      </div>
    </li>
  );
}

/** Banner above the session view's tabs while the child waits for the person (or for another). */
export function PermissionBanner({ sessionKey }: { sessionKey: string }) {
  const mine = useSessionPermissions(sessionKey);
  const others = useSessionAskedOthers(sessionKey);
  const requests = [...mine, ...others];
  if (requests.length === 0) return null;
  return (
    <div className="permission-banners" aria-live="assertive">
      {requests.map((r) => (
        <section
          key={r.id}
          className="permission-banner"
          data-testid="permission-banner"
          data-request-id={r.id}
          aria-label={`Permission request: ${visible(r.title)}`}
        >
          <div>
            <strong>
              {r.requestedBy
                ? `${shortKey(r.requestedBy)} asks for permission:`
                : 'The agent asks for permission:'}
            </strong>{' '}
            <span data-testid="permission-title">{visible(r.title)}</span>
          </div>
          {r.askedOf === undefined ? (
            <Options request={r} />
          ) : (
            <p className="small muted" data-testid="permission-asked-of">
              {visible(r.askedOf)} was asked.
            </p>
          )}
        </section>
      ))}
    </div>
  );
}
