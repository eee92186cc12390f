// Installing an agent from the ACP registry as an ACP profile. `plan` says exactly what will
// happen (the command line, and for a binary what is downloaded from where into which folder)
// before anything does; `install` then downloads and unpacks a binary into the data folder
// (checked: HTTPS, size, archive structure, no escaping paths, the entry's cmd present and
// executable; its SHA-256 recorded), starts the agent once to see that it answers `initialize` and
// `session/new`, and only then saves the profile. Any failure removes what it made: no half-made
// profile, no half-unpacked folder.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type {
  AcpInstallInfo,
  RegistryAgentView,
  RegistryDistribution,
  RegistryInstallPlan,
  RegistryListingView,
} from '../../../shared/ipc/types';
import type { AcpStartProgress } from '../../../shared/ipc/agents';
import type { Db } from '../db/open';
import { GatewayError, notFound } from '../errors';
import type { AcpProfile, GatewayEvent, Logger } from '../types';
import { AcpStartError } from '../runtime/acp/start-error';
import { AcpCommandNotFoundError, resolveCommand } from '../runtime/acp/command';
import { agentNeeds } from '../runtime/acp/agent-needs';
import { ArchiveError, type ExtractLimits } from './archive';
import { fetchBinary } from './binary';
import { DownloadError } from './download';
import { currentPlatform, distributionsOf, type RegistryEntry } from './format';
import { createIndexSource, type IndexSource, type Listing } from './index-source';
import { createInstallStore } from './install-store';
import { removeInside, SEMVER } from './folder';

export const DEFAULT_MAX_DOWNLOAD_BYTES = 512 * 1024 * 1024;
/** npx and uvx fetch the package on first start: give them time. */
const PROBE_TIMEOUT_MS = { binary: 30_000, npx: 180_000, uvx: 180_000 };
/** The last lines of the agent's stderr a failed start shows. */
const STDERR_LINES = 12;

export interface RegistryDeps {
  db: Db;
  dataDir: string;
  now: () => number;
  logger: Logger;
  url?: string;
  /** Tests only: plain http for loopback hosts. */
  allowLoopbackHttp?: boolean;
  maxDownloadBytes?: number;
  extractLimits?: ExtractLimits;
  /** The start check's progress goes out as `acp:progress` (the person sees it while waiting). */
  emit?: (event: GatewayEvent) => void;
  profiles: {
    list(): AcpProfile[];
    get(id: string): AcpProfile | undefined;
    save(p: AcpProfile): AcpProfile;
  };
}

export interface InstallOptions {
  distribution?: RegistryDistribution;
  /** Asked with the plan before anything is downloaded or run (the person's consent). */
  confirm?: (plan: RegistryInstallPlan) => Promise<void>;
  /** Variables the person gave (API key, base URL, extra ones), on top of the entry's own. */
  env?: Record<string, string>;
}

const TOOL_HELP = {
  npx: 'npx comes with Node.js (https://nodejs.org)',
  uvx: 'uvx comes with uv (https://docs.astral.sh/uv/)',
};

/** The registry's parts: the index, the install records, where binaries go, this platform. */
interface Registry {
  deps: RegistryDeps;
  index: IndexSource;
  installs: ReturnType<typeof createInstallStore>;
  agentsDir: string;
  maxBytes: number;
  platform: ReturnType<typeof currentPlatform>;
}

async function find(r: Registry, agentId: string): Promise<RegistryEntry> {
  const entry = (await r.index.listing()).entries.find((e) => e.id === agentId);
  if (!entry) throw notFound(`Unknown registry agent: ${agentId}`);
  return entry;
}

/** The registry id as profile id, unless a hand-written profile has it already. */
function profileIdFor(r: Registry, entry: RegistryEntry): string {
  const mine = r.installs.list().find((i) => i.registryId === entry.id);
  if (mine) return mine.profileId;
  if (!r.deps.profiles.get(entry.id)) return entry.id;
  for (let n = 2; ; n++) if (!r.deps.profiles.get(`${entry.id}-${n}`)) return `${entry.id}-${n}`;
}

/** What installing the entry will do: the distribution, command line, download or missing tool. */
function plan(r: Registry, entry: RegistryEntry, wanted?: RegistryDistribution): RegistryInstallPlan {
  const { platform, agentsDir, maxBytes } = r;
  const offered = distributionsOf(entry, platform);
  const distribution = wanted ?? offered[0];
  const base = {
    agentId: entry.id,
    name: entry.name,
    version: entry.version,
    profileId: profileIdFor(r, entry),
    needs: agentNeeds(entry),
  };
  if (!distribution || !offered.includes(distribution)) {
    const what = wanted ? `a ${wanted} distribution` : 'a distribution';
    throw new GatewayError(
      'unavailable',
      `${entry.name} has no ${what.slice(2)} for ${platform ?? process.platform}`,
    );
  }
  if (distribution === 'binary') {
    const target = entry.binary![platform!]!;
    const folder = path.join(agentsDir, entry.id, entry.version);
    // The index is checked (strict semver, id pattern); this holds whatever reaches here.
    if (!SEMVER.test(entry.version) || path.dirname(path.dirname(folder)) !== agentsDir)
      throw new GatewayError(
        'invalid_argument',
        `refused: registry version "${entry.version}" is not strict semver`,
      );
    return {
      ...base,
      distribution,
      command: path.join(folder, target.cmd),
      args: target.args,
      env: target.env,
      download: { url: target.archive, platform: platform!, folder, maxBytes },
    };
  }
  const pkg = entry[distribution]!;
  const args = distribution === 'npx' ? ['--yes', pkg.package, ...pkg.args] : [pkg.package, ...pkg.args];
  let problem: string | undefined;
  try {
    resolveCommand({ id: '', name: '', command: distribution, args: [], env: {} });
  } catch (err) {
    if (!(err instanceof AcpCommandNotFoundError)) throw err;
    problem = `${distribution} is not installed or not on PATH (${TOOL_HELP[distribution]}); it is needed to run ${entry.name}`;
  }
  return {
    ...base,
    distribution,
    command: distribution,
    args,
    env: pkg.env,
    ...(problem ? { problem } : {}),
  };
}

/** Starts the agent once in a scratch folder: it must answer initialize and session/new. */
async function probe(
  deps: RegistryDeps,
  agentId: string,
  profile: AcpProfile,
  distribution: RegistryDistribution,
): Promise<void> {
  const scratch = path.join(deps.dataDir, 'acp-work', `.probe-${randomUUID().slice(0, 8)}`);
  fs.mkdirSync(scratch, { recursive: true });
  const began = Date.now();
  const progress = (p: Pick<AcpStartProgress, 'stage' | 'text'>) =>
    deps.emit?.({ type: 'acp:progress', progress: { agentId, ...p, elapsedMs: Date.now() - began } });
  try {
    const { AcpChild } = await import('../runtime/acp/child');
    const child = await AcpChild.start({
      profile,
      cwd: scratch,
      startTimeoutMs: PROBE_TIMEOUT_MS[distribution],
      onProgress: progress,
      logger: { warn: (m) => deps.logger.warn(`acp registry probe: ${m}`, { profile: profile.id }) },
      onUpdate: () => undefined,
      onPermission: () => Promise.resolve({ outcome: 'cancelled' }),
    });
    await child.close();
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

async function agentOf(r: Registry, e: RegistryEntry, listing: Listing) {
  const icon = await r.index.icon(e, listing);
  return {
    id: e.id,
    name: e.name,
    version: e.version,
    description: e.description,
    ...(icon ? { icon } : {}),
    distributions: distributionsOf(e, r.platform),
  };
}

/** What Settings shows: the agents with their install state, and where the list came from. */
async function listingView(r: Registry, opts: { refresh?: boolean } = {}): Promise<RegistryListingView> {
  const { index, installs, deps } = r;
  const listing = await index.listing(opts);
  const byRegistryId = new Map(installs.list().map((i) => [i.registryId, i]));
  const agents = await Promise.all(
    listing.entries.map(async (e): Promise<RegistryAgentView> => {
      const installed = byRegistryId.get(e.id);
      return {
        ...(await agentOf(r, e, listing)),
        ...(e.repository ? { repository: e.repository } : {}),
        ...(e.license ? { license: e.license } : {}),
        ...(e.authors ? { authors: e.authors } : {}),
        ...(installed && deps.profiles.get(installed.profileId)
          ? { installedProfileId: installed.profileId, installedVersion: installed.version }
          : {}),
      };
    }),
  );
  return {
    agents,
    source: listing.source,
    url: listing.url,
    ...(listing.fetchedAt !== undefined ? { fetchedAt: listing.fetchedAt } : {}),
    ...(listing.error ? { error: listing.error } : {}),
  };
}

/** Contract: installs the agent and returns its profile (see the file comment). */
async function install(r: Registry, agentId: string, opts: InstallOptions = {}): Promise<AcpProfile> {
  const { deps, platform, agentsDir, installs } = r;
  const entry = await find(r, agentId);
  const planned = plan(r, entry, opts.distribution);
  const p = { ...planned, env: { ...planned.env, ...opts.env } };
  if (p.problem) throw new GatewayError('unavailable', p.problem);
  await opts.confirm?.(p);
  const previous = installs.get(p.profileId);
  let fetched: { sha256: string; size: number; source: string } | undefined;
  try {
    if (p.distribution === 'binary')
      fetched = await fetchBinary(p.download!, entry.binary![platform!]!.cmd, {
        root: agentsDir,
        ...(deps.allowLoopbackHttp ? { allowLoopbackHttp: true } : {}),
        ...(deps.extractLimits ? { extractLimits: deps.extractLimits } : {}),
      });
    const profile: AcpProfile = {
      id: p.profileId,
      name: entry.name,
      command: p.command,
      args: p.args,
      env: p.env,
    };
    await probe(deps, entry.id, profile, p.distribution);
    const saved = deps.profiles.save(profile);
    installs.put({
      profileId: saved.id,
      registryId: entry.id,
      version: entry.version,
      distribution: p.distribution,
      source: fetched?.source ?? entry[p.distribution as 'npx' | 'uvx']!.package,
      ...(fetched ? { sha256: fetched.sha256, size: fetched.size, installDir: p.download!.folder } : {}),
      installedAt: deps.now(),
    });
    // An update replaces the previous version's folder.
    if (previous?.installDir && previous.installDir !== p.download?.folder)
      removeInside(agentsDir, previous.installDir);
    return saved;
  } catch (err) {
    if (fetched && previous?.installDir !== p.download?.folder) removeInside(agentsDir, p.download!.folder);
    throw installError(entry, err, p);
  }
}

/** The profile is gone: its record goes, and the folder of a downloaded binary with it. */
function forget(r: Registry, profileId: string): void {
  const { installs, agentsDir, deps } = r;
  const record = installs.get(profileId);
  if (!record) return;
  installs.remove(profileId);
  // A record is data: its folder is deleted only when it lies inside the agents' folder.
  if (record.installDir) {
    try {
      removeInside(agentsDir, record.installDir);
    } catch (err) {
      deps.logger.warn('acp registry: an install record points outside the agents folder', {
        error: String(err),
      });
    }
  }
}

export function createAcpRegistry(deps: RegistryDeps) {
  const index = createIndexSource({
    dataDir: deps.dataDir,
    now: deps.now,
    logger: deps.logger,
    ...(deps.url ? { url: deps.url } : {}),
    ...(deps.allowLoopbackHttp ? { allowLoopbackHttp: true } : {}),
  });
  const installs = createInstallStore(deps.db);
  const r: Registry = {
    deps,
    index,
    installs,
    agentsDir: path.join(deps.dataDir, 'acp-agents'),
    maxBytes: deps.maxDownloadBytes ?? DEFAULT_MAX_DOWNLOAD_BYTES,
    platform: currentPlatform(),
  };
  return {
    index,

    /** Contract: the registry's agents (live index when reachable, else cached, else bundled). */
    async list() {
      const listing = await index.listing();
      return Promise.all(listing.entries.map((e) => agentOf(r, e, listing)));
    },

    /** What Settings shows: the agents with their install state, and where the list came from. */
    listing: (opts: { refresh?: boolean } = {}) => listingView(r, opts),

    async plan(agentId: string, distribution?: RegistryDistribution): Promise<RegistryInstallPlan> {
      return plan(r, await find(r, agentId), distribution);
    },

    /** Contract: installs the agent and returns its profile (see the file comment). */
    install: (agentId: string, opts: InstallOptions = {}) => install(r, agentId, opts),

    installs: {
      list: (): AcpInstallInfo[] => installs.list(),
      get: (profileId: string) => installs.get(profileId),
    },

    /** The profile is gone: its record goes, and the folder of a downloaded binary with it. */
    forget: (profileId: string) => forget(r, profileId),
  };
}

function installError(entry: RegistryEntry, err: unknown, plan: RegistryInstallPlan): Error {
  if (err instanceof GatewayError) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof DownloadError || err instanceof ArchiveError)
    return new GatewayError('unavailable', `${entry.name} was not installed: ${message}`);
  if (err instanceof AcpStartError) return new GatewayError('unavailable', startFailure(entry, err, plan));
  return new GatewayError('unavailable', `${entry.name} was not installed: ${message}`);
}

export type AcpRegistry = ReturnType<typeof createAcpRegistry>;

/** Why the start check failed, its stderr, and the fix when it is a known one (root, IS_SANDBOX). */
function startFailure(entry: RegistryEntry, err: AcpStartError, plan: RegistryInstallPlan): string {
  const lines = err.stderrTail.trim().split('\n').filter(Boolean).slice(-STDERR_LINES);
  const stderr = lines.length ? `\nIts stderr:\n${lines.join('\n')}` : '';
  // The adapters take any IS_SANDBOX as a sandbox and ask for --dangerously-skip-permissions;
  // Claude Code itself accepts root only with IS_SANDBOX=1.
  const inherited = process.env.IS_SANDBOX;
  const why = inherited && inherited !== '1' ? ` (Sightline's environment has IS_SANDBOX=${inherited})` : '';
  const root =
    plan.needs.sandboxAsRoot && (plan.env.IS_SANDBOX ?? inherited) !== '1'
      ? `\n${entry.name} refuses to run as root unless IS_SANDBOX=1 is set${why}: add it (the "IS_SANDBOX=1" box) and install again.`
      : '';
  return `${entry.name} was not installed: it could not start: ${err.reason}${root}${stderr}`;
}
