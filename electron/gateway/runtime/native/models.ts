// One model provider per agent, built from its stored settings and rebuilt when they change.
import type { AgentConfig } from '../../types';
import { createProvider, type ModelProvider } from './providers';
import { createScriptedProvider } from './providers/scripted';

export function createModelCache(): (agent: AgentConfig) => ModelProvider {
  const cache = new Map<string, { settings: string; provider: ModelProvider }>();
  return (agent) => {
    const settings = `${agent.provider}:${JSON.stringify(agent.providerSettings)}`;
    const cached = cache.get(agent.id);
    if (cached?.settings === settings) return cached.provider;
    const provider = createProvider(agent.provider, agent.providerSettings, createScriptedProvider);
    cache.set(agent.id, { settings, provider });
    return provider;
  };
}
