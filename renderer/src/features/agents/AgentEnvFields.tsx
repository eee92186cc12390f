// The environment an agent needs, asked when it is added: its API key (a password field; the value
// goes to the gateway once and is stored sealed with the profile, never shown again), the base URL
// that moves its endpoint, extra variables, and — in plain words — IS_SANDBOX=1 when Claude Code
// would otherwise refuse to run as root.
import type { AgentNeeds } from '../../../../shared/ipc';
import { SandboxAsRootField } from './SandboxAsRootField';

export interface EnvDraft {
  apiKey: string;
  baseUrl: string;
  /** One `NAME=value` per line. */
  extra: string;
  sandbox: boolean;
}

export const emptyDraft = (needs: AgentNeeds): EnvDraft => ({
  apiKey: '',
  baseUrl: '',
  extra: '',
  sandbox: needs.sandboxAsRoot === true,
});

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The variables to send, or why the extra lines cannot be read. */
export function envOf(needs: AgentNeeds, d: EnvDraft): Record<string, string> | { error: string } {
  const env: Record<string, string> = {};
  for (const raw of d.extra.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    const eq = line.indexOf('=');
    const name = eq > 0 ? line.slice(0, eq).trim() : '';
    if (!NAME.test(name)) return { error: `Not a NAME=value line: ${line.slice(0, 40)}` };
    env[name] = line.slice(eq + 1);
  }
  if (needs.apiKeyEnv && d.apiKey.trim()) env[needs.apiKeyEnv] = d.apiKey.trim();
  if (needs.baseUrlEnv && d.baseUrl.trim()) env[needs.baseUrlEnv] = d.baseUrl.trim();
  if (needs.sandboxAsRoot && d.sandbox) env.IS_SANDBOX = '1';
  return env;
}

export function AgentEnvFields(props: {
  needs: AgentNeeds;
  draft: EnvDraft;
  disabled: boolean;
  onChange(d: EnvDraft): void;
}) {
  const { needs, draft, disabled, onChange } = props;
  const set = (patch: Partial<EnvDraft>) => onChange({ ...draft, ...patch });
  return (
    <fieldset className="agent-env" data-testid="agent-env" disabled={disabled}>
      <legend className="small">Environment for the agent</legend>
      {needs.apiKeyEnv && (
        <label>
          API key <span className="mono small">{needs.apiKeyEnv}</span>
          <input
            type="password"
            autoComplete="off"
            data-testid="agent-env-api-key"
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
            data-testid="agent-env-base-url"
            placeholder="optional"
            value={draft.baseUrl}
            onChange={(e) => set({ baseUrl: e.target.value })}
          />
        </label>
      )}
      <label>
        Extra variables <span className="small muted">(one NAME=value per line)</span>
        <textarea
          rows={2}
          className="mono"
          data-testid="agent-env-extra"
          value={draft.extra}
          onChange={(e) => set({ extra: e.target.value })}
        />
      </label>
      {needs.sandboxAsRoot && (
        <SandboxAsRootField
          testId="agent-env-sandbox"
          checked={draft.sandbox}
          onChange={(on) => set({ sandbox: on })}
        />
      )}
      {needs.note && <p className="small muted">{needs.note}</p>}
      <p className="small muted">
        Values are stored with the profile like its other variables (sealed when a keyring is available) and
        are given to the agent in its environment only, never on its command line.
      </p>
    </fieldset>
  );
}
