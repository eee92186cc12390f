// Builds a model provider from an agent's stored settings (AgentConfig.providerSettings: plain
// strings). The scripted provider lives with the runtime, which passes its factory in; keeping it
// out of this module keeps test-only code out of the network providers' import graph.
// The model SDKs (openai, @anthropic-ai/sdk: about 14 and 23 MB of a process's memory) load at
// a provider's first call, not when the gateway starts (issue 31.3); settings are checked at once.
import type { AnthropicSettings } from './anthropic';
import type { OpenAISettings } from './openai';
import { checkBaseUrl } from './guard';
import type { ModelProvider, ModelRequest } from './types';

export type { ModelProvider } from './types';
export { ModelAbortedError, ModelProviderError } from './types';

export type ScriptedProviderFactory = (settings: Record<string, string>) => ModelProvider;

export function createProvider(
  id: string,
  settings: Record<string, string>,
  scripted?: ScriptedProviderFactory,
): ModelProvider {
  switch (id) {
    case 'openai':
      return lazy('openai', async (o: OpenAISettings) => (await import('./openai')).createOpenAIProvider(o), {
        baseUrl: optional(settings.baseUrl),
        apiKey: optional(settings.apiKey),
        model: requireModel(id, settings),
        timeoutMs: positiveInt(id, settings, 'timeoutMs'),
      });
    case 'anthropic':
      return lazy(
        'anthropic',
        async (o: AnthropicSettings) => (await import('./anthropic')).createAnthropicProvider(o),
        {
          baseUrl: optional(settings.baseUrl),
          apiKey: optional(settings.apiKey),
          model: requireModel(id, settings),
          timeoutMs: positiveInt(id, settings, 'timeoutMs'),
          maxTokens: positiveInt(id, settings, 'maxTokens'),
        },
      );
    case 'scripted':
      if (!scripted) throw new Error('model provider "scripted" needs a factory from the runtime');
      return scripted(settings);
    default:
      throw new Error(`unknown model provider "${id}" (expected openai, anthropic or scripted)`);
  }
}

/** A provider whose module (and SDK) is imported at its first call. */
function lazy<S extends { baseUrl?: string | undefined }>(
  id: 'openai' | 'anthropic',
  make: (settings: S) => Promise<ModelProvider>,
  settings: S,
): ModelProvider {
  // The same check the provider makes, now: a bad base URL fails where the agent is configured.
  if (settings.baseUrl) checkBaseUrl(id, settings.baseUrl);
  let real: Promise<ModelProvider> | undefined;
  return {
    id,
    complete: async (req: ModelRequest) => {
      // A failed import is tried again at the next call.
      real ??= make(settings).catch((err: unknown) => {
        real = undefined;
        throw err;
      });
      return (await real).complete(req);
    },
  };
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
