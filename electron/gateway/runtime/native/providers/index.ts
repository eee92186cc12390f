// Builds a model provider from an agent's stored settings (AgentConfig.providerSettings: plain
// strings). The scripted provider lives with the runtime, which passes its factory in; keeping it
// out of this module keeps test-only code out of the network providers' import graph.
import { createAnthropicProvider } from './anthropic';
import { createOpenAIProvider } from './openai';
import type { ModelProvider } from './types';

export type { ModelProvider } from './types';
export { ModelAbortedError, ModelProviderError } from './types';
export { createAnthropicProvider } from './anthropic';
export { createOpenAIProvider } from './openai';

export type ScriptedProviderFactory = (settings: Record<string, string>) => ModelProvider;

export function createProvider(
  id: string,
  settings: Record<string, string>,
  scripted?: ScriptedProviderFactory,
): ModelProvider {
  switch (id) {
    case 'openai':
      return createOpenAIProvider({
        baseUrl: optional(settings.baseUrl),
        apiKey: optional(settings.apiKey),
        model: requireModel(id, settings),
        timeoutMs: positiveInt(id, settings, 'timeoutMs'),
      });
    case 'anthropic':
      return createAnthropicProvider({
        baseUrl: optional(settings.baseUrl),
        apiKey: optional(settings.apiKey),
        model: requireModel(id, settings),
        timeoutMs: positiveInt(id, settings, 'timeoutMs'),
        maxTokens: positiveInt(id, settings, 'maxTokens'),
      });
    case 'scripted':
      if (!scripted) throw new Error('model provider "scripted" needs a factory from the runtime');
      return scripted(settings);
    default:
      throw new Error(`unknown model provider "${id}" (expected openai, anthropic or scripted)`);
  }
}

function optional(value: string | undefined): string | undefined {
  return value?.trim() ? value.trim() : undefined;
}

function requireModel(id: string, settings: Record<string, string>): string {
  const model = optional(settings.model);
  if (!model) throw new Error(`model provider "${id}" needs a model name (setting "model")`);
  return model;
}

function positiveInt(id: string, settings: Record<string, string>, key: string): number | undefined {
  const raw = optional(settings[key]);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) {
    throw new Error(`model provider "${id}": setting "${key}" must be a positive integer, got "${raw}"`);
  }
  return n;
}
