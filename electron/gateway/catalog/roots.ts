// Where each tool keeps its sessions, with the tools' own environment overrides (reference §1-4).
import os from 'node:os';
import path from 'node:path';
import type { CatalogRoots } from '../types';

export function defaultCatalogRoots(env: NodeJS.ProcessEnv = process.env): Required<CatalogRoots> {
  const home = env.HOME || os.homedir();
  const claudeDir = env.CLAUDE_CONFIG_DIR?.split(',')[0]?.trim() || path.join(home, '.claude');
  const codexHome = env.CODEX_HOME || path.join(home, '.codex');
  const opencodeData = path.join(env.XDG_DATA_HOME || path.join(home, '.local', 'share'), 'opencode');
  const opencodeDb = env.OPENCODE_DB;
  const piAgentDir = env.PI_CODING_AGENT_DIR || path.join(home, '.pi', 'agent');
  return {
    claude: path.join(claudeDir, 'projects'),
    codex: path.join(codexHome, 'sessions'),
    // OPENCODE_DB names the database file (absolute, or relative to the data dir).
    opencode: opencodeDb ? path.resolve(opencodeData, opencodeDb) : opencodeData,
    pi: env.PI_CODING_AGENT_SESSION_DIR || path.join(piAgentDir, 'sessions'),
  };
}

export function resolveCatalogRoots(
  roots: CatalogRoots | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Required<CatalogRoots> {
  const d = defaultCatalogRoots(env);
  return {
    claude: roots?.claude ?? d.claude,
    codex: roots?.codex ?? d.codex,
    opencode: roots?.opencode ?? d.opencode,
    pi: roots?.pi ?? d.pi,
  };
}

/** How a person moves each root: the tools' own environment variables, read when Sightline starts. */
export const CATALOG_ROOT_ENV: Required<Record<keyof CatalogRoots, string>> = {
  claude: 'CLAUDE_CONFIG_DIR (Sightline reads its projects folder)',
  codex: 'CODEX_HOME (Sightline reads its sessions folder)',
  opencode: 'XDG_DATA_HOME (Sightline reads its opencode folder) or OPENCODE_DB',
  pi: 'PI_CODING_AGENT_SESSION_DIR, or PI_CODING_AGENT_DIR (its sessions folder)',
};
