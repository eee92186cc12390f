// Where each tool keeps its sessions: the roots a gateway was given, else each provider's default
// from the tools' own environment overrides (reference §1-4).
import os from 'node:os';
import type { CatalogRoots } from '../types';
import type { ProviderModule } from './provider';
import { PROVIDER_MODULES } from './providers';

export type RootsById = Readonly<Record<string, string>>;

export function defaultCatalogRoots(
  env: NodeJS.ProcessEnv = process.env,
  modules: readonly ProviderModule[] = PROVIDER_MODULES,
): Required<CatalogRoots> & RootsById {
  const home = env.HOME || os.homedir();
  return Object.fromEntries(modules.map((m) => [m.id, m.defaultRoot(env, home)])) as Required<CatalogRoots>;
}

export function resolveCatalogRoots(
  roots: CatalogRoots | RootsById | undefined,
  env: NodeJS.ProcessEnv = process.env,
  modules: readonly ProviderModule[] = PROVIDER_MODULES,
): Required<CatalogRoots> & RootsById {
  const given: Record<string, string | undefined> = { ...roots };
  const d = defaultCatalogRoots(env, modules);
  return Object.fromEntries(modules.map((m) => [m.id, given[m.id] ?? d[m.id]!])) as Required<CatalogRoots>;
}

/** How a person moves each root: the tools' own environment variables, read when Sightline starts. */
export const CATALOG_ROOT_ENV: Required<Record<keyof CatalogRoots, string>> = {
  claude: 'CLAUDE_CONFIG_DIR (Sightline reads its projects folder)',
  codex: 'CODEX_HOME (Sightline reads its sessions folder)',
  opencode: 'XDG_DATA_HOME (Sightline reads its opencode folder) or OPENCODE_DB',
  pi: 'PI_CODING_AGENT_SESSION_DIR, or PI_CODING_AGENT_DIR (its sessions folder)',
};
