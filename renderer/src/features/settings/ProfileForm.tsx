// Settings → ACP profiles: the form for a new profile or an existing one. Validation is the
// gateway's: its envelope's message shows under the form. Saving a new or changed command line
// asks the person to confirm it (a native dialog in Electron, the consent prompt in browser mode).
import { useState } from 'react';
import type { AcpProfileView } from '../../../../shared/ipc';
import { useProfiles } from '../../stores/profiles';
import { errorMessage } from '../../lib/api';
import { ReachChoice } from './ReachChoice';
import { ProfileNeeds } from './ProfileNeeds';
import { draftOf, saveInput, slug, type ProfileDraft } from './profileDraft';

interface Section {
  d: ProfileDraft;
  set(patch: Partial<ProfileDraft>): void;
  /** The element id of one field of this form. */
  f(field: string): string;
  profile?: AcpProfileView;
}

/** What the person calls it and, for a new profile, its id (the name's slug unless typed). */
function NameFields({ d, set, f, profile }: Section) {
  return (
    <>
      <label htmlFor={f('name')}>Name</label>
      <input
        id={f('name')}
        data-testid="acp-profile-name"
        value={d.name}
        maxLength={200}
        autoFocus
        onChange={(e) => set({ name: e.target.value })}
      />
      {!profile && (
        <>
          <label htmlFor={f('id')}>ID</label>
          <input
            id={f('id')}
            data-testid="acp-profile-id"
            className="mono"
            value={d.id}
            placeholder={slug(d.name) || 'lower-case-id'}
            maxLength={64}
            onChange={(e) => set({ id: e.target.value })}
          />
        </>
      )}
    </>
  );
}

/** How the gateway starts it: command line, environment (with a known agent's own fields), folder. */
function LaunchFields({ d, set, f, profile }: Section) {
  return (
    <>
      <label htmlFor={f('command')}>Command</label>
      <input
        id={f('command')}
        data-testid="acp-profile-command"
        className="mono"
        value={d.command}
        placeholder="/usr/local/bin/my-acp-agent"
        onChange={(e) => set({ command: e.target.value })}
      />
      <label htmlFor={f('args')}>Arguments (one per line)</label>
      <textarea
        id={f('args')}
        data-testid="acp-profile-args"
        className="mono"
        rows={3}
        value={d.args}
        onChange={(e) => set({ args: e.target.value })}
      />
      <label htmlFor={f('env')}>Environment (KEY=VALUE lines)</label>
      <textarea
        id={f('env')}
        data-testid="acp-profile-env"
        className="mono"
        rows={3}
        value={d.env}
        onChange={(e) => set({ env: e.target.value })}
      />
      {profile?.needs && d.needs && (
        <ProfileNeeds profile={profile} draft={d.needs} onChange={(needs) => set({ needs })} />
      )}
      <label htmlFor={f('cwd')}>Working directory</label>
      <input
        id={f('cwd')}
        data-testid="acp-profile-cwd"
        className="mono"
        value={d.cwd}
        placeholder="empty: a fresh directory per child under the data directory"
        onChange={(e) => set({ cwd: e.target.value })}
      />
    </>
  );
}

/** Who may start it, what it asks before, and what its tools reach. */
function WhoFields({ d, set }: Pick<Section, 'd' | 'set'>) {
  return (
    <>
      <span>Who and how</span>
      <div className="profile-flags">
        <label>
          <input
            type="checkbox"
            data-testid="acp-profile-allow-agents"
            checked={d.allowAgents}
            onChange={(e) => set({ allowAgents: e.target.checked })}
          />
          Agents may start it (sessions_spawn); otherwise only you can
        </label>
        <label>
          <input
            type="checkbox"
            data-testid="acp-profile-ask-terminal"
            checked={d.askTerminal}
            onChange={(e) => set({ askTerminal: e.target.checked })}
          />
          Ask me before every terminal command it runs (switching this off is asked again)
        </label>
      </div>
      <ReachChoice id="acp-profile-reach" value={d.reach} onChange={(reach) => set({ reach })} />
    </>
  );
}

export function ProfileForm({ profile, onDone }: { profile?: AcpProfileView; onDone(): void }) {
  const save = useProfiles((s) => s.save);
  const [d, setDraft] = useState(() => draftOf(profile));
  const set = (patch: Partial<ProfileDraft>) => setDraft((old) => ({ ...old, ...patch }));
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const f = (field: string) => `acp-${profile?.id ?? 'new'}-${field}`;

  const submit = async () => {
    const input = saveInput(d, profile);
    if ('error' in input) return setError(input.error);
    setSaving(true);
    setError(null);
    try {
      await save(input);
      onDone();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setSaving(false);
    }
  };

  return (
    <form
      className="agent-form profile-form"
      data-testid="acp-profile-form"
      data-profile-id={profile?.id ?? ''}
      aria-label={profile ? `Edit ACP profile ${profile.name}` : 'New ACP profile'}
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h2>{profile ? `Edit ${profile.name}` : 'New ACP profile'}</h2>
      <NameFields d={d} set={set} f={f} profile={profile} />
      <LaunchFields d={d} set={set} f={f} profile={profile} />
      <WhoFields d={d} set={set} />
      {error && (
        <p className="form-error" role="alert" data-testid="acp-profile-error">
          {error}
        </p>
      )}
      <div className="inline">
        <button type="submit" className="primary" disabled={saving} data-testid="acp-profile-save">
          Save profile
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
