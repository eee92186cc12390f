// Settings → ACP profiles: how the gateway starts an ACP agent (command, arguments, environment,
// working directory, who may start it). Validation is the gateway's: its envelope's message shows
// under the form. Saving a new or changed command line asks the person to confirm it (a native
// dialog in Electron, the consent prompt in browser mode). Environment values are secrets: the page
// only ever sees them masked, and a masked line left as it was keeps the stored value.
// Over 300 lines on purpose: the list and its form share the editing state (masked values kept).
import { useEffect, useState } from 'react';
import type { AcpProfileView, ArgsOf, Reach } from '../../../../shared/ipc';
import { SECRET_MASK } from '../../../../shared/secrets';
import { useProfiles } from '../../stores/profiles';
import { errorMessage } from '../../lib/api';
import { ConfirmAction } from '../../components/ConfirmAction';
import { InstallNote } from './InstallNote';
import { ReachChoice, reachLine } from './ReachChoice';
import { ProfileNeeds, needsDraft, withNeeds, type NeedsDraft } from './ProfileNeeds';

/** `Fixture agent` → `fixture-agent`: a default id for a new profile. */
export function slug(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+|-+$/g, '')
    .slice(0, 64);
}

/** One argument per line; blank lines are ignored. */
export function parseArgs(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.replace(/\r$/, ''))
    .filter((l) => l.trim() !== '');
}

/** `KEY=VALUE` per line (the value may contain `=`); blank lines are ignored. */
export function parseEnv(text: string): { env: Record<string, string> } | { error: string } {
  const env: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, '');
    if (line.trim() === '') continue;
    const eq = line.indexOf('=');
    if (eq <= 0) return { error: `env line ${i + 1}: expected KEY=VALUE` };
    const key = line.slice(0, eq).trim();
    if (key in env) return { error: `env line ${i + 1}: ${key} is set twice` };
    env[key] = line.slice(eq + 1);
  }
  return { env };
}

/** Lines still showing the stored (masked) value keep it; the others are new values. */
export function splitKept(
  env: Record<string, string>,
  shown: Record<string, string>,
): { env: Record<string, string>; keepEnv: string[] } {
  const fresh: Record<string, string> = {};
  const keepEnv: string[] = [];
  for (const [k, v] of Object.entries(env)) {
    if (v.startsWith(SECRET_MASK) && shown[k] === v) keepEnv.push(k);
    else fresh[k] = v;
  }
  return { env: fresh, keepEnv };
}

const envText = (env: Record<string, string>) =>
  Object.entries(env)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');

function ProfileForm({ profile, onDone }: { profile?: AcpProfileView; onDone(): void }) {
  const save = useProfiles((s) => s.save);
  const [id, setId] = useState(profile?.id ?? '');
  const [name, setName] = useState(profile?.name ?? '');
  const [command, setCommand] = useState(profile?.command ?? '');
  const [args, setArgs] = useState(profile?.args.join('\n') ?? '');
  const [env, setEnv] = useState(envText(profile?.env ?? {}));
  const [cwd, setCwd] = useState(profile?.cwd ?? '');
  const [allowAgents, setAllowAgents] = useState(profile?.allowAgents ?? false);
  const [askTerminal, setAskTerminal] = useState(profile?.askTerminal ?? false);
  const [reach, setReach] = useState<Reach>(profile?.reach ?? 'agent');
  const [needs, setNeeds] = useState<NeedsDraft | undefined>(profile?.needs && needsDraft(profile));
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const f = (field: string) => `acp-${profile?.id ?? 'new'}-${field}`;
  const effectiveId = profile ? profile.id : id.trim() || slug(name);

  const submit = async () => {
    const parsedEnv = parseEnv(env);
    if ('error' in parsedEnv) return setError(parsedEnv.error);
    const kept = splitKept(parsedEnv.env, profile?.env ?? {});
    const split = profile?.needs && needs ? withNeeds(profile.needs, needs, kept) : kept;
    const input: ArgsOf<'acp:profiles:save'> = {
      id: effectiveId,
      name,
      command,
      args: parseArgs(args),
      env: split.env,
      ...(split.keepEnv.length ? { keepEnv: split.keepEnv } : {}),
      cwd: cwd.trim(),
      allowAgents,
      askTerminal,
      reach,
    };
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
      <label htmlFor={f('name')}>Name</label>
      <input
        id={f('name')}
        data-testid="acp-profile-name"
        value={name}
        maxLength={200}
        autoFocus
        onChange={(e) => setName(e.target.value)}
      />
      {!profile && (
        <>
          <label htmlFor={f('id')}>ID</label>
          <input
            id={f('id')}
            data-testid="acp-profile-id"
            className="mono"
            value={id}
            placeholder={slug(name) || 'lower-case-id'}
            maxLength={64}
            onChange={(e) => setId(e.target.value)}
          />
        </>
      )}
      <label htmlFor={f('command')}>Command</label>
      <input
        id={f('command')}
        data-testid="acp-profile-command"
        className="mono"
        value={command}
        placeholder="/usr/local/bin/my-acp-agent"
        onChange={(e) => setCommand(e.target.value)}
      />
      <label htmlFor={f('args')}>Arguments (one per line)</label>
      <textarea
        id={f('args')}
        data-testid="acp-profile-args"
        className="mono"
        rows={3}
        value={args}
        onChange={(e) => setArgs(e.target.value)}
      />
      <label htmlFor={f('env')}>Environment (KEY=VALUE lines)</label>
      <textarea
        id={f('env')}
        data-testid="acp-profile-env"
        className="mono"
        rows={3}
        value={env}
        onChange={(e) => setEnv(e.target.value)}
      />
      {profile?.needs && needs && <ProfileNeeds profile={profile} draft={needs} onChange={setNeeds} />}
      <label htmlFor={f('cwd')}>Working directory</label>
      <input
        id={f('cwd')}
        data-testid="acp-profile-cwd"
        className="mono"
        value={cwd}
        placeholder="empty: a fresh directory per child under the data directory"
        onChange={(e) => setCwd(e.target.value)}
      />
      <span>Who and how</span>
      <div className="profile-flags">
        <label>
          <input
            type="checkbox"
            data-testid="acp-profile-allow-agents"
            checked={allowAgents}
            onChange={(e) => setAllowAgents(e.target.checked)}
          />
          Agents may start it (sessions_spawn); otherwise only you can
        </label>
        <label>
          <input
            type="checkbox"
            data-testid="acp-profile-ask-terminal"
            checked={askTerminal}
            onChange={(e) => setAskTerminal(e.target.checked)}
          />
          Ask me before every terminal command it runs (switching this off is asked again)
        </label>
      </div>
      <ReachChoice id="acp-profile-reach" value={reach} onChange={setReach} />
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
