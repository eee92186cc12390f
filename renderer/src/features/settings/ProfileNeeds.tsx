// The fields the registry's Add form has, on a profile of a known agent (issue 28.4): its API key
// (a password field that starts empty: the stored key never comes back to the page, only whether
// one is stored), the base URL that moves its endpoint, and IS_SANDBOX=1 when Claude Code would
// refuse to run as root. A field left empty keeps what is stored.
import type { AcpProfileView, AgentNeeds } from '../../../../shared/ipc';
import { SandboxAsRootField } from '../agents/SandboxAsRootField';

export interface NeedsDraft {
  apiKey: string;
  baseUrl: string;
  sandbox: boolean;
}

export const needsDraft = (p: AcpProfileView): NeedsDraft => ({
  apiKey: '',
  baseUrl: '',
  sandbox: 'IS_SANDBOX' in p.env,
});

/** The environment and kept names to save, with the fields' values over the env lines. */
export function withNeeds(
  needs: AgentNeeds,
  d: NeedsDraft,
  saved: { env: Record<string, string>; keepEnv: string[] },
): { env: Record<string, string>; keepEnv: string[] } {
  const env = { ...saved.env };
  let keepEnv = [...saved.keepEnv];
  const put = (name: string, value: string) => {
    env[name] = value;
    keepEnv = keepEnv.filter((k) => k !== name);
  };
  if (needs.apiKeyEnv && d.apiKey.trim()) put(needs.apiKeyEnv, d.apiKey.trim());
  if (needs.baseUrlEnv && d.baseUrl.trim()) put(needs.baseUrlEnv, d.baseUrl.trim());
  if (needs.sandboxAsRoot) {
    if (d.sandbox) put('IS_SANDBOX', '1');
    else {
      delete env.IS_SANDBOX;
      keepEnv = keepEnv.filter((k) => k !== 'IS_SANDBOX');
    }
  }
  return { env, keepEnv };
}

export function ProfileNeeds(props: {
  profile: AcpProfileView;
  draft: NeedsDraft;
  onChange(d: NeedsDraft): void;
}) {
  const { profile, draft, onChange } = props;
  const needs = profile.needs ?? {};
  const set = (patch: Partial<NeedsDraft>) => onChange({ ...draft, ...patch });
  const stored = (name: string | undefined) =>
    name && name in profile.env ? 'stored — type to replace' : 'not set';
  return (
    <fieldset className="agent-env" data-testid="acp-profile-needs">
      <legend className="small">What the agent needs</legend>
      {needs.apiKeyEnv && (
        <label>
          API key <span className="mono small">{needs.apiKeyEnv}</span>
          <input
            type="password"
            autoComplete="off"
            data-testid="acp-profile-api-key"
            placeholder={stored(needs.apiKeyEnv)}
            value={draft.apiKey}
            onChange={(e) => set({ apiKey: e.target.value })}
          />
        </label>
      )}
      {needs.baseUrlEnv && (
        <label>
          Base URL <span className="mono small">{needs.baseUrlEnv}</span>
          <input
            type="url"
            data-testid="acp-profile-base-url"
            placeholder={stored(needs.baseUrlEnv)}
            value={draft.baseUrl}
            onChange={(e) => set({ baseUrl: e.target.value })}
          />
        </label>
      )}
      {needs.sandboxAsRoot && (
        <SandboxAsRootField
          testId="acp-profile-sandbox"
          checked={draft.sandbox}
          onChange={(on) => set({ sandbox: on })}
        />
      )}
      {needs.note && <p className="small muted">{needs.note}</p>}
      <p className="small muted">
        Stored with the profile like its other variables (sealed when a keyring is available), given to the
        agent in its environment only, never shown again.
      </p>
    </fieldset>
  );
}
