import { useEffect } from 'react';
import { useSettings } from '../../stores/settings';
import { useUi } from '../../stores/ui';
import { errorMessage } from '../../lib/api';
import { AcpProfiles } from './AcpProfiles';
import { AgentForm } from './AgentForm';
import { AcpRegistry } from './AcpRegistry';
import { McpCredentials } from './McpCredentials';
import { Nodes } from './Nodes';
import { People } from './People';
import { Retention } from './Retention';
import { SecretStorage } from './SecretStorage';
import { Backups } from './Backups';
import { Appearance } from './Appearance';
import { Notifications } from './Notifications';

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
