// The ACP registry's index format (registry.json: `{ version, agents: [...] }`, see
// snapshot/README.md), parsed as hostile input: every field bounded, package names and commands
// that could act as flags refused, unknown distribution kinds and platforms ignored. One bad entry
// is skipped (and counted); it never hides the others.
import { z } from 'zod';
import { SEMVER } from './folder';

export const PLATFORMS = [
  'darwin-aarch64',
  'darwin-x86_64',
  'linux-aarch64',
  'linux-x86_64',
  'windows-aarch64',
  'windows-x86_64',
] as const;
export type Platform = (typeof PLATFORMS)[number];

export const DISTRIBUTIONS = ['binary', 'npx', 'uvx'] as const;
export type DistributionKind = (typeof DISTRIBUTIONS)[number];

/** The registry's name for the platform Sightline runs on (undefined where it has none). */
export function currentPlatform(
  platform: string = process.platform,
  arch: string = process.arch,
): Platform | undefined {
  const os = { darwin: 'darwin', linux: 'linux', win32: 'windows' }[platform];
  const cpu = { arm64: 'aarch64', x64: 'x86_64' }[arch];
  const key = os && cpu ? `${os}-${cpu}` : undefined;
  return (PLATFORMS as readonly string[]).includes(key ?? '') ? (key as Platform) : undefined;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const text = (max: number) => z.string().max(max);
const args = z.array(text(4096)).max(100).default([]);
const env = z
  .record(z.string().regex(ENV_NAME).max(256), text(32_768))
  .refine((e) => Object.keys(e).length <= 100)
  .default({});

/** An npm or PyPI package spec. A leading `-` would reach npx/uvx as an option. */
const packageSpec = z
  .string()
  .min(1)
  .max(300)
  .regex(/^[^-\s][^\s]*$/);

const packageDistribution = z.object({ package: packageSpec, args, env });

const binaryTarget = z.object({
  archive: text(2048).min(1),
  /** A path inside the archive, e.g. `./codex-acp`. */
  cmd: z
    .string()
    .min(1)
    .max(512)
    .refine((c) => !c.startsWith('-') && !c.includes('\0')),
  args,
  env,
});

const entrySchema = z.object({
  id: z
    .string()
    .max(64)
    .regex(/^[a-z][a-z0-9-]*$/),
  name: text(200).min(1),
  // Strict semver: the version names a folder, so nothing but semver (issue 29.4).
  version: text(64).regex(SEMVER),
  description: text(2000).min(1),
  repository: text(2048).optional(),
  authors: z.array(text(200)).max(50).optional(),
  license: text(200).optional(),
  icon: text(2048).optional(),
  distribution: z.object({
    npx: packageDistribution.optional(),
    uvx: packageDistribution.optional(),
    binary: z.record(z.string(), z.unknown()).optional(),
  }),
});

export type PackageDistribution = z.infer<typeof packageDistribution>;
export type BinaryTarget = z.infer<typeof binaryTarget>;

export interface RegistryEntry {
  id: string;
  name: string;
  version: string;
  description: string;
  repository?: string;
  authors?: string[];
  license?: string;
  icon?: string;
  npx?: PackageDistribution;
  uvx?: PackageDistribution;
  /** Only the platforms Sightline knows, each target checked. */
  binary?: Partial<Record<Platform, BinaryTarget>>;
}

export const MAX_INDEX_BYTES = 4 * 1024 * 1024;
const MAX_AGENTS = 2000;

export class RegistryFormatError extends Error {
  constructor(message: string) {
    super(`the ACP registry index is not valid: ${message}`);
    this.name = 'RegistryFormatError';
  }
}

function toEntry(raw: unknown): RegistryEntry | undefined {
  const r = entrySchema.safeParse(raw);
  if (!r.success) return undefined;
  const { distribution, ...rest } = r.data;
  const binary: Partial<Record<Platform, BinaryTarget>> = {};
  for (const [platform, target] of Object.entries(distribution.binary ?? {})) {
    if (!(PLATFORMS as readonly string[]).includes(platform)) continue;
    const t = binaryTarget.safeParse(target);
    if (t.success) binary[platform as Platform] = t.data;
  }
  const entry: RegistryEntry = {
    ...rest,
    ...(distribution.npx ? { npx: distribution.npx } : {}),
    ...(distribution.uvx ? { uvx: distribution.uvx } : {}),
    ...(Object.keys(binary).length ? { binary } : {}),
  };
  return entry.npx || entry.uvx || entry.binary ? entry : undefined;
}

/** Parses the index text; throws RegistryFormatError when it is not a registry at all. */
export function parseRegistry(text: string): { entries: RegistryEntry[]; skipped: number } {
  if (text.length > MAX_INDEX_BYTES) throw new RegistryFormatError('larger than 4 MiB');
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new RegistryFormatError('not JSON');
  }
  const agents = (raw as { agents?: unknown } | null)?.agents;
  if (typeof raw !== 'object' || raw === null || !Array.isArray(agents))
    throw new RegistryFormatError('no "agents" list');
  const entries: RegistryEntry[] = [];
  const seen = new Set<string>();
  let skipped = 0;
  for (const a of agents.slice(0, MAX_AGENTS)) {
    const e = toEntry(a);
    if (!e || seen.has(e.id)) skipped++;
    else {
      seen.add(e.id);
      entries.push(e);
    }
  }
  return { entries, skipped: skipped + Math.max(0, agents.length - MAX_AGENTS) };
}

/** The distribution kinds an entry offers on this platform. */
export function distributionsOf(e: RegistryEntry, platform = currentPlatform()): DistributionKind[] {
  const out: DistributionKind[] = [];
  if (platform && e.binary?.[platform]) out.push('binary');
  if (e.npx) out.push('npx');
  if (e.uvx) out.push('uvx');
  return out;
}
