// Settings → ACP profiles: how the gateway starts an ACP agent (command, arguments, environment,
// working directory, who may start it): the list of cards, one form open at a time (ProfileForm,
// its fields and what is saved in profileDraft).
import { useEffect, useState } from 'react';
import type { AcpProfileView } from '../../../../shared/ipc';
import { useProfiles } from '../../stores/profiles';
import { errorMessage } from '../../lib/api';
import { ConfirmAction } from '../../components/ConfirmAction';
import { InstallNote } from './InstallNote';
import { reachLine } from './ReachChoice';
import { ProfileForm } from './ProfileForm';

function ProfileCard({ profile, onEdit }: { profile: AcpProfileView; onEdit(): void }) {
  const remove = useProfiles((s) => s.remove);
  const [error, setError] = useState<string | null>(null);
  const envNames = Object.keys(profile.env);
  return (
    <li className="profile-card" data-testid="acp-profile" data-profile-id={profile.id}>
      <div className="profile-head">
        <strong data-testid="acp-profile-card-name">{profile.name}</strong>{' '}
        <span className="muted mono small">{profile.id}</span>
      </div>
      <div className="mono small" data-testid="acp-profile-card-command">
        {[profile.command, ...profile.args].join(' ')}
      </div>
      <div className="muted small">
        {envNames.length ? `env: ${envNames.join(', ')}` : 'no extra environment'} ·{' '}
        {profile.cwd ? <span className="mono">{profile.cwd}</span> : 'own directory per child'}
      </div>
      <InstallNote profileId={profile.id} />
      <div className="muted small" data-testid="acp-profile-card-reach">
        its tools reach {reachLine(profile.reach)}
      </div>
      <div className="muted small" data-testid="acp-profile-card-flags">
        {profile.allowAgents ? 'agents may start it' : 'only you can start it'}
        {profile.askTerminal ? ' · asks before every terminal command' : ''}
      </div>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <div className="inline">
        <button type="button" data-testid="acp-profile-edit" onClick={onEdit}>
          Edit
        </button>
        <ConfirmAction
          label="Remove…"
          confirmLabel={`Remove ${profile.name}`}
          testId="acp-profile-remove"
          onConfirm={() => remove(profile.id).catch((err: unknown) => setError(errorMessage(err)))}
        />
      </div>
    </li>
  );
}

export function AcpProfiles() {
  const profiles = useProfiles((s) => s.profiles);
  const loaded = useProfiles((s) => s.loaded);
  const load = useProfiles((s) => s.load);
  const [editing, setEditing] = useState<string | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  useEffect(() => {
    load().catch((err: unknown) => setLoadError(errorMessage(err)));
  }, [load]);
  const NEW = '\u0000new';

  return (
    <section className="settings-section" data-testid="acp-profiles" data-ready={loaded ? 'true' : 'false'}>
      <h2>ACP profiles</h2>
      <p className="muted">
        Agents that speak the Agent Client Protocol, started by the gateway when a coordinator spawns a child
        with <code>runtime: &quot;acp&quot;</code> and a profile id (only profiles you allow for agents).
        Their permission questions come to you, and a new or changed command line runs only after you confirm
        it.
      </p>
      {loadError && (
        <p className="form-error" role="alert">
          {loadError}
        </p>
      )}
      {loaded && profiles.length === 0 && editing !== NEW && (
        <p className="empty-note">No ACP profiles yet.</p>
      )}
      <ul className="profile-list">
        {profiles.map((p) =>
          editing === p.id ? (
            <li key={p.id}>
              <ProfileForm profile={p} onDone={() => setEditing(null)} />
            </li>
          ) : (
            <ProfileCard key={p.id} profile={p} onEdit={() => setEditing(p.id)} />
          ),
        )}
      </ul>
      {editing === NEW ? (
        <ProfileForm onDone={() => setEditing(null)} />
      ) : (
        <button type="button" data-testid="acp-profile-add" onClick={() => setEditing(NEW)}>
          Add ACP profile
        </button>
      )}
    </section>
  );
}
