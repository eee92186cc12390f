// Settings → one model agent: its name, provider, model, base URL, API key (stored by the gateway,
// never shown back: only whether one is stored and its last characters), system prompt, heartbeat.
import { useState } from 'react';
import { PROVIDER_IDS, type AgentView, type ProviderId } from '../../../../shared/ipc/types';
import { useSettings } from '../../stores/settings';
import { useUi } from '../../stores/ui';
import { errorMessage } from '../../lib/api';

interface AgentDraft {
  name: string;
  provider: ProviderId;
  model: string;
  baseUrl: string;
  /** Empty: the stored key stays. */
  apiKey: string;
  systemPrompt: string;
  heartbeat: string;
}

interface Section {
  agent: AgentView;
  d: AgentDraft;
  set(patch: Partial<AgentDraft>): void;
  /** The element id of one field of this agent's form. */
  id(field: string): string;
}

/** Who answers: the provider, its model and where it is reached. */
function ModelFields({ d, set, id }: Section) {
  return (
    <>
      <label htmlFor={id('provider')}>Provider</label>
      <select
        id={id('provider')}
        value={d.provider}
        onChange={(e) => set({ provider: e.target.value as ProviderId })}
      >
        {PROVIDER_IDS.map((p) => (
          <option key={p}>{p}</option>
        ))}
      </select>
      <label htmlFor={id('model')}>Model</label>
      <input
        id={id('model')}
        value={d.model}
        onChange={(e) => set({ model: e.target.value })}
        maxLength={200}
      />
      <label htmlFor={id('baseUrl')}>Base URL</label>
      <input
        id={id('baseUrl')}
        value={d.baseUrl}
        placeholder="https://…"
        onChange={(e) => set({ baseUrl: e.target.value })}
      />
    </>
  );
}

/** A new key typed replaces the stored one; the stored one can be removed on its own. */
function ApiKeyField({ agent, d, set, id }: Section) {
  const save = useSettings((s) => s.save);
  const setError = useUi((s) => s.setError);
  return (
    <>
      <label htmlFor={id('apiKey')}>API key</label>
      <div className="inline">
        <input
          id={id('apiKey')}
          type="password"
          autoComplete="off"
          data-testid="agent-api-key"
          value={d.apiKey}
          placeholder={agent.hasApiKey ? 'stored — type to replace' : 'not set'}
          onChange={(e) => set({ apiKey: e.target.value })}
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
    </>
  );
}

/** What it is told before every conversation, and how often it wakes on its own. */
function BehaviourFields({ d, set, id }: Section) {
  return (
    <>
      <label htmlFor={id('prompt')}>System prompt</label>
      <textarea
        id={id('prompt')}
        rows={4}
        value={d.systemPrompt}
        onChange={(e) => set({ systemPrompt: e.target.value })}
      />
      <label htmlFor={id('heartbeat')}>Heartbeat (seconds, 0 = off)</label>
      <input
        id={id('heartbeat')}
        type="number"
        min={0}
        max={86400}
        value={d.heartbeat}
        onChange={(e) => set({ heartbeat: e.target.value })}
      />
    </>
  );
}

export function AgentForm({ agent }: { agent: AgentView }) {
  const save = useSettings((s) => s.save);
  const saving = useSettings((s) => s.saving);
  const setError = useUi((s) => s.setError);
  const [d, setDraft] = useState<AgentDraft>(() => ({
    name: agent.name,
    provider: agent.provider,
    model: agent.model,
    baseUrl: agent.baseUrl,
    apiKey: '',
    systemPrompt: agent.systemPrompt,
    heartbeat: String(agent.heartbeatSeconds),
  }));
  const set = (patch: Partial<AgentDraft>) => setDraft((old) => ({ ...old, ...patch }));
  const [saved, setSaved] = useState(false);
  const section: Section = { agent, d, set, id: (f) => `agent-${agent.id}-${f}` };

  const submit = () => {
    setSaved(false);
    const { heartbeat, apiKey, ...rest } = d;
    save({ id: agent.id, ...rest, heartbeatSeconds: Number(heartbeat), ...(apiKey ? { apiKey } : {}) }).then(
      () => {
        set({ apiKey: '' });
        setSaved(true);
      },
      (err: unknown) => setError(errorMessage(err)),
    );
  };

  return (
    <form
      className="agent-form"
      data-testid="agent-form"
      data-agent-id={agent.id}
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <h2>
        {agent.name} <span className="muted mono small">{agent.id}</span>
      </h2>
      <label htmlFor={section.id('name')}>Name</label>
      <input
        id={section.id('name')}
        value={d.name}
        onChange={(e) => set({ name: e.target.value })}
        maxLength={200}
      />
      <ModelFields {...section} />
      <ApiKeyField {...section} />
      <BehaviourFields {...section} />
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
