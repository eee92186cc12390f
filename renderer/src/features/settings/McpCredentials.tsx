// Settings → MCP: connect an agent you run outside Sightline (a terminal Claude Code or Codex) to
// one session, see every credential (ACP children's own included), when and by which client each
// was last used, and revoke. A new secret is shown once, with the command for each tool.
import { useEffect, useState } from 'react';
import type { McpCredentialView, McpIssuedView, Reach } from '../../../../shared/ipc';
import { claudeCommand, codexCommands, shimCommand } from '../../../../shared/mcp-commands';
import { ConfirmAction } from '../../components/ConfirmAction';
import { errorMessage } from '../../lib/api';
import { dateTime, sessionTitle, shortKey } from '../../lib/format';
import { useFleet } from '../../stores/fleet';
import { useMcp } from '../../stores/mcp';
import { ReachChoice, reachLine } from './ReachChoice';

const NEW = '\u0000new';

function Issued({ issued, onDone }: { issued: McpIssuedView; onDone(): void }) {
  return (
    <div className="profile-card mcp-issued" data-testid="mcp-issued" role="status">
      <strong>Credential for {shortKey(issued.sessionKey)}</strong>
      <p className="small">
        This secret is shown once: Sightline keeps only a hash of it. Paste one of these into the agent&apos;s
        terminal.
      </p>
      <label className="small muted">Secret</label>
      <code className="mono block" data-testid="mcp-secret">
        {issued.secret}
      </code>
      <label className="small muted">Claude Code</label>
      <code className="mono block" data-testid="mcp-claude-command">
        {claudeCommand(issued.url, issued.secret)}
      </code>
      <label className="small muted">Codex</label>
      <code className="mono block" data-testid="mcp-codex-command">
        {codexCommands(issued.url, issued.secret).join('\n')}
      </code>
      {issued.command && (
        <>
          <label className="small muted">Any agent that speaks stdio MCP only</label>
          <code className="mono block" data-testid="mcp-shim-command">
            {shimCommand(issued.command, issued.secret)}
          </code>
        </>
      )}
      <div className="inline">
        <button type="button" className="primary" data-testid="mcp-issued-done" onClick={onDone}>
          Done, I have copied it
        </button>
      </div>
    </div>
  );
}

function CredentialRow({ c, port }: { c: McpCredentialView; port: number | undefined }) {
  const revoke = useMcp((s) => s.revoke);
  const [error, setError] = useState<string | null>(null);
  const moved = port !== undefined && c.issuedPort !== port;
  return (
    <li
      className="profile-card"
      data-testid="mcp-credential"
      data-kind={c.kind}
      data-session-key={c.sessionKey}
    >
      <div className="profile-head">
        <strong>{sessionTitle({ key: c.sessionKey, label: c.sessionLabel ?? '' })}</strong>{' '}
        <span className="muted mono small">{c.sessionKey}</span>
      </div>
      <div className="small">
        {c.kind === 'acp' ? 'ACP child (automatic)' : c.label || 'outside agent'} · created{' '}
        {dateTime(c.createdAt)}
      </div>
      <div className="small" data-testid="mcp-reach-line">
        reaches {reachLine(c.reach)}
      </div>
      <div className="small muted" data-testid="mcp-last-used">
        {c.lastUsedAt
          ? `last used ${dateTime(c.lastUsedAt)} by ${c.client ?? 'an unnamed client'}`
          : 'never used'}
      </div>
      {moved && (
        <p className="form-error small" data-testid="mcp-port-changed">
          Issued for port {c.issuedPort}; Sightline now listens on port {port} (that port was taken at start).
          Update this agent&apos;s URL; the secret still works.
        </p>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <div className="inline">
        <ConfirmAction
          label="Revoke…"
          confirmLabel="Revoke now"
          testId="mcp-revoke"
          onConfirm={() => revoke(c.id).catch((err: unknown) => setError(errorMessage(err)))}
        />
      </div>
    </li>
  );
}

/** The session a new credential acts as: an existing one, or a new session named here. */
function TargetField(props: {
  value: string;
  onChange(key: string): void;
  name: string;
  onName(n: string): void;
}) {
  const sessions = useFleet((s) => s.sessions);
  // Adopted and outside sessions first: those are the ones a terminal agent usually is.
  const choices = Object.values(sessions).sort(
    (a, b) =>
      Number(b.kind === 'adopted' || b.kind === 'external') -
        Number(a.kind === 'adopted' || a.kind === 'external') ||
      sessionTitle(a).localeCompare(sessionTitle(b)),
  );
  return (
    <>
      <label htmlFor="mcp-target">Session the agent acts as</label>
      <select
        id="mcp-target"
        data-testid="mcp-target"
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
      >
        <option value={NEW}>A new session named…</option>
        {choices.map((s) => (
          <option key={s.key} value={s.key}>
            {sessionTitle(s)} ({s.key})
          </option>
        ))}
      </select>
      {props.value === NEW && (
        <input
          data-testid="mcp-new-name"
          className="form-second-column"
          aria-label="Name of the new session"
          placeholder="e.g. Claude Code in ~/src/app"
          value={props.name}
          maxLength={200}
          onChange={(e) => props.onName(e.target.value)}
        />
      )}
    </>
  );
}

/** Makes a credential for one session; the page's error (a failed load too) shows under it. */
function IssueForm({ error, setError }: { error: string | null; setError(e: string | null): void }) {
  const issue = useMcp((s) => s.issue);
  const load = useMcp((s) => s.load);
  const [target, setTarget] = useState(NEW);
  const [name, setName] = useState('');
  const [label, setLabel] = useState('');
  const [reach, setReach] = useState<Reach>('tree');
  const [busy, setBusy] = useState(false);

  const submit = async () => {
    // Said in words here; the gateway's own check names fields, which is for programs.
    if (target === NEW && !name.trim()) return setError('Give the new session a name.');
    setBusy(true);
    setError(null);
    try {
      await issue({
        ...(target === NEW ? { newSessionName: name } : { sessionKey: target }),
        ...(label.trim() ? { label } : {}),
        reach,
      });
      setName('');
      setLabel('');
      setReach('tree');
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="agent-form"
      data-testid="mcp-issue-form"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <TargetField value={target} onChange={setTarget} name={name} onName={setName} />
      <label htmlFor="mcp-label">Label (optional)</label>
      <input
        id="mcp-label"
        data-testid="mcp-label"
        value={label}
        maxLength={200}
        placeholder="e.g. laptop terminal"
        onChange={(e) => setLabel(e.target.value)}
      />
      <ReachChoice id="mcp-reach" value={reach} onChange={setReach} />
      {error && (
        <p className="form-error" role="alert" data-testid="mcp-error">
          {error}
        </p>
      )}
      <div className="inline">
        <button type="submit" className="primary" disabled={busy} data-testid="mcp-issue">
          Make credential
        </button>
        <button type="button" className="quiet" data-testid="mcp-refresh" onClick={() => void load()}>
          Refresh
        </button>
      </div>
    </form>
  );
}

export function McpCredentials() {
  const { loaded, view, issued, load, dismissIssued } = useMcp();
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    load().catch((err: unknown) => setError(errorMessage(err)));
    return () => useMcp.getState().dismissIssued(); // the secret does not outlive the page
  }, [load]);

  return (
    <section
      className="settings-section"
      data-testid="mcp-credentials"
      data-ready={loaded ? 'true' : 'false'}
    >
      <h2>MCP</h2>
      <p className="muted">
        Coding agents use Sightline&apos;s session tools through MCP, acting as one session each. ACP children
        get a credential of their own automatically. For an agent you run in a terminal, make one here.{' '}
        <span data-testid="mcp-endpoint">
          {view.url ? (
            <>
              Endpoint: <code className="mono">{view.url}</code>
            </>
          ) : (
            'The endpoint starts with the first credential.'
          )}
        </span>
      </p>
      {issued && <Issued issued={issued} onDone={dismissIssued} />}
      <IssueForm error={error} setError={setError} />
      {loaded && view.credentials.length === 0 && <p className="empty-note">No MCP credentials yet.</p>}
      <ul className="profile-list">
        {view.credentials.map((c) => (
          <CredentialRow key={c.id} c={c} port={view.port} />
        ))}
      </ul>
    </section>
  );
}
