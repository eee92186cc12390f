// When the agent answered authRequired: its ways to authenticate, each with what it needs — the
// agent's own method (ACP authenticate), its login command for a terminal (run by the gateway in a
// terminal panel here, after the person allowed it; or copied to run by hand), or an API key for the profile (sent once, stored sealed, never shown again) — then
// Retry.
import { useEffect, useState } from 'react';
import type { AcpAuthView, AuthMethodView } from '../../../../shared/ipc';
import { call, errorMessage } from '../../lib/api';
import { LoginTerminal } from './LoginTerminal';

export const AUTH_REQUIRED = '(code -32000)';

/** `onRetry` only when the run can be retried: the panel's Retry is then the banner's only one. */
export function AuthPanel({ sessionKey, onRetry }: { sessionKey: string; onRetry?: () => void }) {
  const [view, setView] = useState<AcpAuthView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    call('acp:auth:get', { sessionKey }).then(setView, (err: unknown) => setError(errorMessage(err)));
  }, [sessionKey]);
  const act = (what: Promise<unknown>, done: string) => {
    setBusy(true);
    setError(null);
    what.then(
      () => {
        setNote(done);
        setBusy(false);
      },
      (err: unknown) => {
        setError(errorMessage(err));
        setBusy(false);
      },
    );
  };
  return (
    <div className="auth-panel" data-testid="auth-panel">
      <strong>The agent needs you to authenticate it.</strong>
      {view && (
        <ul>
          {view.methods.map((m) => (
            <li key={m.id} data-testid="auth-method" data-method-id={m.id} data-kind={m.kind}>
              <div>
                {m.name}
                {m.description && <span className="muted small"> — {m.description}</span>}
              </div>
              {m.kind === 'apiKey' ? (
                <KeyMethod method={m} view={view} />
              ) : m.kind === 'agent' ? (
                <button
                  type="button"
                  disabled={busy}
                  onClick={() =>
                    act(
                      call('acp:auth:authenticate', { sessionKey, methodId: m.id }),
                      `${m.name}: done. Retry the run.`,
                    )
                  }
                >
                  Authenticate
                </button>
              ) : (
                <TerminalMethod sessionKey={sessionKey} method={m} busy={busy} onError={setError} />
              )}
            </li>
          ))}
          {view.apiKeyEnv && <ApiKeyField view={view} busy={busy} act={act} />}
        </ul>
      )}
      {note && (
        <p className="small" role="status">
          {note}
        </p>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {onRetry && (
        <button type="button" className="primary" disabled={busy} data-testid="auth-retry" onClick={onRetry}>
          Retry
        </button>
      )}
    </div>
  );
}

const KEY_INPUT = 'auth-api-key-input';

/**
 * An API-key method means "put the key in the agent's environment": `authenticate` cannot do that,
 * so it leads the person to the profile's key field below.
 */
function KeyMethod({ method, view }: { method: AuthMethodView; view: AcpAuthView }) {
  if (!view.apiKeyEnv)
    return <div className="small">Set its key in the profile “{view.profileName}” in Settings.</div>;
  return (
    <button
      type="button"
      data-testid="auth-use-key"
      onClick={() => document.querySelector<HTMLInputElement>(`[data-testid="${KEY_INPUT}"]`)?.focus()}
    >
      Enter the key ({method.keyEnv ?? view.apiKeyEnv})
    </button>
  );
}

/** An API key for the profile: sent once, stored sealed with it, never shown again. */
function ApiKeyField(props: {
  view: AcpAuthView;
  busy: boolean;
  act(what: Promise<unknown>, done: string): void;
}) {
  const { view, busy, act } = props;
  const sessionKey = view.sessionKey;
  const [key, setKey] = useState('');
  return (
    <li data-testid="auth-api-key">
      <div>
        Or give the profile “{view.profileName}” an API key (<span className="mono">{view.apiKeyEnv}</span>
        {view.hasKey ? ', replacing the one it has' : ''}):
      </div>
      <input
        type="password"
        data-testid={KEY_INPUT}
        aria-label={`API key (${view.apiKeyEnv})`}
        autoComplete="off"
        value={key}
        disabled={busy}
        onChange={(e) => setKey(e.target.value)}
      />{' '}
      <button
        type="button"
        disabled={busy || !key.trim()}
        onClick={() =>
          act(
            call('acp:auth:key', { sessionKey, name: view.apiKeyEnv!, value: key }).then(() => setKey('')),
            'The key is stored with the profile. Retry the run.',
          )
        }
      >
        Save key
      </button>
    </li>
  );
}

/** A terminal login: its command line, and running it in a terminal panel here (after consent). */
function TerminalMethod(props: {
  sessionKey: string;
  method: AuthMethodView;
  busy: boolean;
  onError(message: string | null): void;
}) {
  const { sessionKey, method, busy, onError } = props;
  const [open, setOpen] = useState(false);
  return (
    <>
      <div className="small">Its login command (Sightline asks before it runs it; or run it yourself):</div>
      <pre className="mono">{method.command?.join(' ')}</pre>
      {open ? (
        <LoginTerminal
          sessionKey={sessionKey}
          methodId={method.id}
          onClose={() => setOpen(false)}
          onFailed={(message) => {
            onError(message);
            setOpen(false);
          }}
        />
      ) : (
        <button
          type="button"
          disabled={busy}
          data-testid="auth-run-terminal"
          onClick={() => {
            onError(null);
            setOpen(true);
          }}
        >
          Run in a terminal
        </button>
      )}
    </>
  );
}
