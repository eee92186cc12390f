// Browser mode's consent prompt: Sightline is about to run a program for the first time and the
// person decides, seeing exactly what runs. Modal, one question at a time, "Don't run" focused.
import type { ConsentRequestView } from '../../../../shared/ipc';
import { useConsent } from '../../stores/consent';
import { useUi } from '../../stores/ui';
import { errorMessage } from '../../lib/api';
import { visible } from '../../../../shared/visible';

// Everything here comes from outside (a profile, a recorded folder): hidden characters visible.
const quote = (a: string) => visible(JSON.stringify(a));

function Details({ request }: { request: ConsentRequestView }) {
  return (
    <dl className="consent-details">
      <dt>Program</dt>
      <dd className="mono" data-testid="consent-program">
        {visible(request.program)}
      </dd>
      <dt>Arguments</dt>
      <dd>
        {request.args.length === 0 ? (
          <span className="muted">none</span>
        ) : (
          <ol className="mono consent-args" data-testid="consent-args">
            {request.args.map((a, i) => (
              <li key={i}>{quote(a)}</li>
            ))}
          </ol>
        )}
      </dd>
      {request.cwd && (
        <>
          <dt>Folder</dt>
          <dd className="mono" data-testid="consent-cwd">
            {visible(request.cwd)}
          </dd>
        </>
      )}
      {request.env.length > 0 && (
        <>
          <dt>Environment</dt>
          <dd className="mono" data-testid="consent-env">
            {request.env.map((v) => visible(`${v.name}=${v.value}`)).join('\n')}
          </dd>
        </>
      )}
      {request.sessionKey && (
        <>
          <dt>Session</dt>
          <dd className="mono">{visible(request.sessionKey)}</dd>
        </>
      )}
      {request.allowAgents !== undefined && (
        <>
          <dt>Agents may start it</dt>
          <dd data-testid="consent-allow-agents">{request.allowAgents ? 'yes' : 'no'}</dd>
        </>
      )}
    </dl>
  );
}

export function ConsentPrompt() {
  const request = useConsent((s) => s.requests[0]);
  const waiting = useConsent((s) => s.requests.length);
  const answering = useConsent((s) => s.answering);
  const respond = useConsent((s) => s.respond);
  const setError = useUi((s) => s.setError);
  if (!request) return null;
  const answer = (allow: boolean) =>
    respond(request.id, allow).catch((err: unknown) => setError(errorMessage(err)));
  const titleId = `consent-${request.id}-title`;
  return (
    <div className="palette-backdrop consent-backdrop">
      <section
        className="consent"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby={titleId}
        data-testid="consent-prompt"
        data-kind={request.kind}
        data-request-id={request.id}
      >
        <h2 id={titleId} data-testid="consent-title">
          {visible(request.title)}?
        </h2>
        <p className="muted small">
          Sightline runs this program as your user account, with your files and network. Nothing runs until
          you allow it.{waiting > 1 ? ` ${waiting - 1} more question(s) after this one.` : ''}
        </p>
        <Details request={request} />
        <div className="inline">
          <button
            type="button"
            autoFocus
            disabled={answering}
            data-testid="consent-decline"
            onClick={() => void answer(false)}
          >
            Don&apos;t run
          </button>
          <button
            type="button"
            className="primary"
            disabled={answering}
            data-testid="consent-allow"
            onClick={() => void answer(true)}
          >
            {request.kind === 'acp-profile' || request.kind === 'credential' ? 'Allow' : 'Run'}
          </button>
        </div>
      </section>
    </div>
  );
}
