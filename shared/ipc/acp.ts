// ACP agents: profiles and the registry installer.
// Declarations only; shared/ipc/types.ts re-exports every domain file.
import type { AgentNeeds } from './agents';

import type { Reach } from './reach';

/** How to launch one ACP agent: the one profile type (stored and started). */
export interface AcpProfile {
  id: string;
  name: string;
  command: string;
  args: string[];
  /** Added on top of the gateway's environment. Secret: sealed at rest, masked in every view. */
  env: Record<string, string>;
  /** Directory the process starts in (relative to the session working directory); defaults to it. */
  cwd?: string;
  /** Agents (sessions_spawn) may start this profile; default false: only the person may. */
  allowAgents?: boolean;
  /** Ask the person before every terminal command the agent runs; default false. */
  askTerminal?: boolean;
  /** What its agents' MCP credentials reach (shared/ipc/reach.ts); default 'agent'. */
  reach?: Reach;
}

/**
 * What the renderer sees of a profile: environment values masked to at most their last 4
 * characters (`••••abcd`); the flags always present.
 */
export interface AcpProfileView {
  id: string;
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  allowAgents: boolean;
  askTerminal: boolean;
  reach: Reach;
  /** What the agent is known to need in its environment (its API key, base URL, IS_SANDBOX). */
  needs?: AgentNeeds;
}

export const REGISTRY_DISTRIBUTIONS = ['binary', 'npx', 'uvx'] as const;
export type RegistryDistribution = (typeof REGISTRY_DISTRIBUTIONS)[number];

/** An agent of the ACP registry (contract: `acp.registry.list()`). `icon` is a data: URL. */
export interface RegistryAgent {
  id: string;
  name: string;
  version: string;
  description: string;
  icon?: string;
  /** What it can be installed as on this platform. */
  distributions: RegistryDistribution[];
}

/** What Settings shows of a registry agent. */
export interface RegistryAgentView extends RegistryAgent {
  repository?: string;
  license?: string;
  authors?: string[];
  /** The profile made from it, when it is installed. */
  installedProfileId?: string;
  installedVersion?: string;
}

/** The registry list and where it came from. */
export interface RegistryListingView {
  agents: RegistryAgentView[];
  /** `live`: fetched now; `cache`: fetched earlier (see fetchedAt); `bundled`: Sightline's offline copy. */
  source: 'live' | 'cache' | 'bundled';
  url: string;
  fetchedAt?: number;
  /** Why the live index was not used. */
  error?: string;
}

/** What installing a registry agent will do, shown to the person before it does it. */
export interface RegistryInstallPlan {
  agentId: string;
  name: string;
  version: string;
  distribution: RegistryDistribution;
  /** The profile it makes (or updates). */
  profileId: string;
  /** The exact command line the profile runs. */
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Binary distributions: what is downloaded, from where, into which folder. */
  download?: { url: string; platform: string; folder: string; maxBytes: number };
  /** Why it cannot be installed here (e.g. npx missing); installing then fails with this. */
  problem?: string;
  /** What the agent needs in its environment (an API key, a base URL, IS_SANDBOX as root). */
  needs: AgentNeeds;
}

/** A profile installed from the registry: where it came from and what was installed. */
export interface AcpInstallInfo {
  profileId: string;
  registryId: string;
  version: string;
  distribution: RegistryDistribution;
  /** The archive URL, or the npm/PyPI package. */
  source: string;
  /** Binary: SHA-256 of the downloaded archive. */
  sha256?: string;
  size?: number;
  installDir?: string;
  installedAt: number;
}
