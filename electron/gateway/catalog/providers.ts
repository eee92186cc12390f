// The catalog's providers. Adding a tool: its folder (a ProviderModule) and one line here (and its
// name in shared CATALOG_PROVIDERS, the list the contract and the renderer know).
import { claudeProvider } from './claude';
import { codexProvider } from './codex';
import { opencodeProvider } from './opencode';
import type { ProviderModule } from './provider';
import { piProvider } from './pi';

export const PROVIDER_MODULES: readonly ProviderModule[] = [
  claudeProvider,
  codexProvider,
  opencodeProvider,
  piProvider,
];
