// Settings → ACP agents from the registry (the list Zed and JetBrains IDEs offer): icon, name,
// description, version; where the list came from and how old it is. "Add" first shows exactly
// what installing does (the command line; for a binary what is downloaded, from where, into which
// folder) and installs only when the person confirms. Failures name their cause; nothing
// half-made is kept.
import { useEffect, useState } from 'react';
import type { RegistryAgentView, RegistryInstallPlan, RegistryListingView } from '../../../../shared/ipc';
import { errorMessage } from '../../lib/api';
import { bytes } from '../../lib/format';
import { useRegistry } from '../../stores/registry';
import { AgentEnvFields, emptyDraft, envOf } from '../agents/AgentEnvFields';
import { StartProgress } from '../agents/StartProgress';

/** "3 min ago", "2 h ago", "4 days ago". */
export function age(ms: number): string {
  const min = Math.max(0, Math.round(ms / 60_000));
  if (min < 1) return 'just now';
  if (min < 60) return `${min} min ago`;
  const h = Math.round(min / 60);
  return h < 48 ? `${h} h ago` : `${Math.round(h / 24)} days ago`;
}

function Source({ listing, listedAt }: { listing: RegistryListingView; listedAt: number }) {
  const when = listing.fetchedAt !== undefined ? age(listedAt - listing.fetchedAt) : '';
  const text =
    listing.source === 'live'
      ? `From the live registry, fetched ${when}.`
      : listing.source === 'cache'
        ? `From a copy of the registry fetched ${when}.`
        : "From Sightline's bundled copy of the registry (it may be out of date).";
  return (
    <p className="muted small" data-testid="registry-source" data-source={listing.source}>
      {text} <span className="mono">{listing.url}</span>
      {listing.error && <> — the live registry could not be used: {listing.error}</>}
    </p>
  );
}

function command(plan: RegistryInstallPlan): string {
  const quote = (a: string) => (a !== '' && /^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a));
  return [plan.command, ...plan.args].map(quote).join(' ');
}

function Plan({ plan, onDone }: { plan: RegistryInstallPlan; onDone(message: string | null): void }) {
  const install = useRegistry((s) => s.install);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [draft, setDraft] = useState(() => emptyDraft(plan.needs));
  const env = Object.keys(plan.env);
  return (
    <div className="confirm neutral plan" data-testid="registry-plan">
      {plan.download ? (
        <p>
          Sightline will download <span className="mono">{plan.download.url}</span> (for{' '}
          {plan.download.platform}, at most {bytes(plan.download.maxBytes)}), unpack it into{' '}
          <span className="mono">{plan.download.folder}</span> and then run:
        </p>
      ) : (
        <p>Sightline will run, through {plan.distribution} (which fetches the package on first use):</p>
      )}
      <code className="mono" data-testid="registry-plan-command">
        {command(plan)}
      </code>
      {env.length > 0 && <p className="small">with environment: {env.join(', ')}</p>}
      {plan.download && (
        <p className="small muted">
          The registry publishes no checksum. Sightline downloads over HTTPS only, checks the size, the
          archive&apos;s structure (no file may land outside that folder) and that the command is in it and
          executable, and records the SHA-256 of what it downloaded.
        </p>
      )}
      <p className="small muted">
        It then starts the agent once to check that it answers, and adds the profile{' '}
        <span className="mono">{plan.profileId}</span>.
      </p>
      <AgentEnvFields needs={plan.needs} draft={draft} disabled={busy} onChange={setDraft} />
      {busy && <StartProgress agentId={plan.agentId} />}
      {plan.problem && (
        <p className="form-error" role="alert">
          {plan.problem}
        </p>
      )}
      {error && (
        <p className="form-error" role="alert" data-testid="registry-error">
          {error}
        </p>
      )}
      <div className="inline">
        <button
          type="button"
          className="primary"
          data-testid="registry-install"
          disabled={busy || plan.problem !== undefined}
          onClick={() => {
            const chosen = envOf(plan.needs, draft);
            if ('error' in chosen && typeof chosen.error === 'string') {
              setError(chosen.error);
              return;
            }
            setBusy(true);
            setError(null);
            install(plan.agentId, plan.distribution, chosen as Record<string, string>).then(
              (p) => onDone(`Added the ACP profile ${p.name} (${p.id}).`),
              (err: unknown) => {
                setError(errorMessage(err));
                setBusy(false);
              },
            );
          }}
        >
          {busy ? (plan.download ? 'Downloading and checking…' : 'Installing and checking…') : 'Install'}
        </button>
        <button type="button" disabled={busy} onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
    </div>
  );
}

function Agent({ agent }: { agent: RegistryAgentView }) {
  const plan = useRegistry((s) => s.plan);
  const [shown, setShown] = useState<RegistryInstallPlan | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const installed = agent.installedProfileId !== undefined;
  const outdated = installed && agent.installedVersion !== agent.version;
  return (
    <li className="registry-agent" data-testid="registry-agent" data-agent-id={agent.id}>
      {agent.icon ? <img src={agent.icon} alt="" /> : <span className="no-icon" />}
      <div>
        <strong>{agent.name}</strong> <span className="muted small">{agent.version}</span>{' '}
        {agent.distributions.map((d) => (
          <span key={d} className="badge dist">
            {d}
          </span>
        ))}
        <div className="small">{agent.description}</div>
        {installed && (
          <div className="small muted" data-testid="registry-installed">
            Installed as profile <span className="mono">{agent.installedProfileId}</span> (version{' '}
            {agent.installedVersion})
          </div>
        )}
        {note && (
          <div className="small" role="status" data-testid="registry-note">
            {note}
          </div>
        )}
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
      </div>
      <div>
        {agent.distributions.length === 0 ? (
          <span className="muted small">not for this platform</span>
        ) : (
          (!installed || outdated) &&
          !shown && (
            <button
              type="button"
              data-testid="registry-add"
              onClick={() => {
                setError(null);
                plan(agent.id).then(setShown, (err: unknown) => setError(errorMessage(err)));
              }}
            >
              {outdated ? `Update to ${agent.version}` : 'Add'}
            </button>
          )
        )}
      </div>
      {shown && (
        <Plan
          plan={shown}
          onDone={(message) => {
            setShown(null);
            setNote(message);
          }}
        />
      )}
    </li>
  );
}

export function AcpRegistry() {
  const listing = useRegistry((s) => s.listing);
  const loading = useRegistry((s) => s.loading);
  const listedAt = useRegistry((s) => s.listedAt);
  const load = useRegistry((s) => s.load);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    load().catch((err: unknown) => setError(errorMessage(err)));
  }, [load]);
  return (
    <section
      className="settings-section"
      data-testid="acp-registry"
      data-ready={listing && !loading ? 'true' : 'false'}
    >
      <h2>ACP agents from the registry</h2>
      <p className="muted">
        Coding agents that speak the Agent Client Protocol, as listed by the ACP registry (the list Zed and
        JetBrains IDEs offer). Adding one makes an ACP profile you can start sessions with.
      </p>
      {listing && <Source listing={listing} listedAt={listedAt} />}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <button
        type="button"
        className="quiet"
        data-testid="registry-refresh"
        disabled={loading}
        onClick={() => load(true).catch((err: unknown) => setError(errorMessage(err)))}
      >
        {loading ? 'Loading…' : 'Check the live registry now'}
      </button>
      <ul className="registry-list">
        {listing?.agents.map((a) => (
          <Agent key={a.id} agent={a} />
        ))}
      </ul>
    </section>
  );
}
