import { useEffect, useState } from 'react';
import { PROVIDER_IDS, type AgentView, type ProviderId } from '../../../../shared/ipc/types';
import { useSettings } from '../../stores/settings';
import { useUi } from '../../stores/ui';
import { errorMessage } from '../../lib/api';
import { AcpProfiles } from './AcpProfiles';
import { AcpRegistry } from './AcpRegistry';
import { McpCredentials } from './McpCredentials';
import { Nodes } from './Nodes';
import { People } from './People';
import { Retention } from './Retention';
import { SecretStorage } from './SecretStorage';
import { Backups } from './Backups';
import { Appearance } from './Appearance';
import { Notifications } from './Notifications';

function AgentForm({ agent }: { agent: AgentView }) {
  const save = useSettings((s) => s.save);
  const saving = useSettings((s) => s.saving);
  const setError = useUi((s) => s.setError);
  const [name, setName] = useState(agent.name);
  const [provider, setProvider] = useState<ProviderId>(agent.provider);
  const [model, setModel] = useState(agent.model);
  const [baseUrl, setBaseUrl] = useState(agent.baseUrl);
  const [apiKey, setApiKey] = useState('');
  const [systemPrompt, setSystemPrompt] = useState(agent.systemPrompt);
  const [heartbeat, setHeartbeat] = useState(String(agent.heartbeatSeconds));
  const [saved, setSaved] = useState(false);
  const id = (f: string) => `agent-${agent.id}-${f}`;

  return (
    <form
      className="agent-form"
      data-testid="agent-form"
      data-agent-id={agent.id}
      onSubmit={(e) => {
        e.preventDefault();
        setSaved(false);
        save({
          id: agent.id,
          name,
          provider,
          model,
          baseUrl,
          systemPrompt,
          heartbeatSeconds: Number(heartbeat),
          ...(apiKey ? { apiKey } : {}),
        }).then(
          () => {
            setApiKey('');
            setSaved(true);
          },
          (err: unknown) => setError(errorMessage(err)),
        );
      }}
    >
      <h2>
        {agent.name} <span className="muted mono small">{agent.id}</span>
      </h2>
      <label htmlFor={id('name')}>Name</label>
      <input id={id('name')} value={name} onChange={(e) => setName(e.target.value)} maxLength={200} />
      <label htmlFor={id('provider')}>Provider</label>
      <select
        id={id('provider')}
        value={provider}
        onChange={(e) => setProvider(e.target.value as ProviderId)}
      >
        {PROVIDER_IDS.map((p) => (
          <option key={p}>{p}</option>
        ))}
      </select>
      <label htmlFor={id('model')}>Model</label>
      <input id={id('model')} value={model} onChange={(e) => setModel(e.target.value)} maxLength={200} />
      <label htmlFor={id('baseUrl')}>Base URL</label>
      <input
        id={id('baseUrl')}
        value={baseUrl}
        placeholder="https://…"
        onChange={(e) => setBaseUrl(e.target.value)}
      />
      <label htmlFor={id('apiKey')}>API key</label>
      <div className="inline">
        <input
          id={id('apiKey')}
          type="password"
          autoComplete="off"
          data-testid="agent-api-key"
          value={apiKey}
          placeholder={agent.hasApiKey ? 'stored — type to replace' : 'not set'}
          onChange={(e) => setApiKey(e.target.value)}
        />
        <span className="small muted" data-testid="agent-has-key">
          {agent.hasApiKey ? `key stored${agent.apiKeyHint ? ` (…${agent.apiKeyHint})` : ''}` : 'no key'}
        </span>
        {agent.hasApiKey && (
          <button
            type="button"
            className="quiet"
            onClick={() =>
              save({ id: agent.id, clearApiKey: true }).catch((err: unknown) => setError(errorMessage(err)))
            }
          >
            Remove key
          </button>
        )}
      </div>
      <label htmlFor={id('prompt')}>System prompt</label>
      <textarea
        id={id('prompt')}
        rows={4}
        value={systemPrompt}
        onChange={(e) => setSystemPrompt(e.target.value)}
      />
      <label htmlFor={id('heartbeat')}>Heartbeat (seconds, 0 = off)</label>
      <input
        id={id('heartbeat')}
        type="number"
        min={0}
        max={86400}
        value={heartbeat}
        onChange={(e) => setHeartbeat(e.target.value)}
      />
      <div className="inline">
        <button type="submit" className="primary" disabled={saving} data-testid="agent-save">
          Save
        </button>
        {saved && (
          <span className="small muted" data-testid="agent-saved">
            Saved.
          </span>
        )}
      </div>
    </form>
  );
}

export function Settings() {
  const agents = useSettings((s) => s.agents);
  const loaded = useSettings((s) => s.loaded);
  const load = useSettings((s) => s.load);
  const setError = useUi((s) => s.setError);
  useEffect(() => {
    load().catch((err: unknown) => setError(errorMessage(err)));
  }, [load, setError]);
  return (
    <section className="page" data-testid="settings" data-ready={loaded ? 'true' : 'false'}>
      <h1>Settings</h1>
      <p className="muted">
        Agents: model provider, model, base URL, API key (stored by the gateway, never shown), system prompt,
        heartbeat. A base URL on another host needs the API key again; plain http is for this machine only.
      </p>
      <SecretStorage />
      {loaded && agents.length === 0 && <p className="empty-note">No agents configured yet.</p>}
      {agents.map((a) => (
        <AgentForm key={`${a.id}:${a.hasApiKey}`} agent={a} />
      ))}
      <AcpProfiles />
      <Notifications />
      <AcpRegistry />
      <McpCredentials />
      <Nodes />
      <People />
      <Appearance />
      <Retention />
      <Backups />
    </section>
  );
}
