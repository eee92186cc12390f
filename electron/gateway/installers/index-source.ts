// Where the registry's list of agents comes from: the live index when it can be fetched (cached in
// the data folder for an hour, the upstream's own refresh period), else the last cached copy (its
// age shown), else the copy bundled with Sightline. Icons are fetched once per URL, bounded, kept
// beside the cache and handed out as data URLs (the page's CSP allows `data:` images only).
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../types';
import { checkUrl, fetchLimited } from './download';
import { MAX_INDEX_BYTES, parseRegistry, type RegistryEntry } from './format';
import bundledIcons from './snapshot/icons.json';
import bundledIndex from './snapshot/registry.json';

export const DEFAULT_REGISTRY_URL = 'https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json';
export const CACHE_MAX_AGE_MS = 60 * 60 * 1000;
const INDEX_TIMEOUT_MS = 8_000;
const ICON_TIMEOUT_MS = 4_000;
const MAX_ICON_BYTES = 64 * 1024;
const RETRY_OFFLINE_MS = 5 * 60 * 1000;

export type ListingSource = 'live' | 'cache' | 'bundled';

export interface Listing {
  entries: RegistryEntry[];
  source: ListingSource;
  /** The index URL the list came from (the bundled copy names the live one it mirrors). */
  url: string;
  /** When the list was fetched (live or cached); absent for the bundled copy. */
  fetchedAt?: number;
  /** Why the live index was not used, when it was not. */
  error?: string;
  /** Entries left out because they were not valid. */
  skipped: number;
}

export interface IndexSourceDeps {
  dataDir: string;
  url?: string;
  now: () => number;
  logger: Logger;
  allowLoopbackHttp?: boolean;
}

interface CacheFile {
  url: string;
  fetchedAt: number;
  text: string;
}

const svgDataUrl = (svg: string) =>
  `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;

/** Only an SVG document becomes an icon (an <img> never runs its scripts, but junk stays out). */
function asSvg(body: Buffer): string | undefined {
  const t = body.toString('utf8').trimStart();
  return /^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<svg[\s>]/i.test(t) ? t : undefined;
}

/** The source's settings and the files it keeps in the data folder. */
interface Place {
  deps: IndexSourceDeps;
  url: string;
  cacheFile: string;
  iconDir: string;
}

function writeAtomic(file: string, data: string | Buffer): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${randomUUID()}.tmp`;
  fs.writeFileSync(tmp, data, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/** The cached index, when it is of this URL and whole. */
function readCache(at: Place): CacheFile | undefined {
  try {
    const c = JSON.parse(fs.readFileSync(at.cacheFile, 'utf8')) as CacheFile;
    return c.url === at.url && typeof c.text === 'string' && typeof c.fetchedAt === 'number' ? c : undefined;
  } catch {
    return undefined;
  }
}

function bundled(error?: string): Listing {
  const { entries, skipped } = parseRegistry(JSON.stringify(bundledIndex));
  return { entries, source: 'bundled', url: DEFAULT_REGISTRY_URL, skipped, ...(error ? { error } : {}) };
}

/** Cache within the hour, else live (cached on success), else the older cache, else the bundle. */
async function load(at: Place, force: boolean): Promise<Listing> {
  const { deps, url } = at;
  const cached = readCache(at);
  if (cached && !force && deps.now() - cached.fetchedAt < CACHE_MAX_AGE_MS) {
    const parsed = parseRegistry(cached.text);
    return { ...parsed, source: 'cache', url, fetchedAt: cached.fetchedAt };
  }
  let error: string;
  try {
    const got = await fetchLimited(url, {
      maxBytes: MAX_INDEX_BYTES,
      timeoutMs: INDEX_TIMEOUT_MS,
      ...(deps.allowLoopbackHttp ? { allowLoopbackHttp: true } : {}),
    });
    const text = got.body!.toString('utf8');
    const parsed = parseRegistry(text); // a broken index is not cached
    const fetchedAt = deps.now();
    writeAtomic(at.cacheFile, JSON.stringify({ url, fetchedAt, text } satisfies CacheFile));
    return { ...parsed, source: 'live', url, fetchedAt };
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
    deps.logger.warn('acp registry: the live index is not available', { error });
  }
  if (cached) {
    try {
      return { ...parseRegistry(cached.text), source: 'cache', url, fetchedAt: cached.fetchedAt, error };
    } catch {
      // A damaged cache falls through to the bundled copy.
    }
  }
  return bundled(error);
}

/** An icon as a data URL: the bundled copy's from the bundle, a live one fetched once. */
async function icon(at: Place, entry: RegistryEntry, listing: Listing): Promise<string | undefined> {
  const { deps } = at;
  // The bundled copy's icons, also for live entries that name none (the registry has icons for
  // agents whose entry does not point at them).
  if (listing.source === 'bundled' || !entry.icon) {
    const svg = (bundledIcons as Record<string, string>)[
      listing.source === 'bundled' && entry.icon ? entry.icon : `icons/${entry.id}.svg`
    ];
    return svg ? svgDataUrl(svg) : undefined;
  }
  let iconUrl: URL;
  try {
    iconUrl = checkUrl(new URL(entry.icon, listing.url).href, deps.allowLoopbackHttp);
  } catch {
    return undefined;
  }
  const file = path.join(
    at.iconDir,
    `${createHash('sha256').update(iconUrl.href).digest('hex').slice(0, 24)}.svg`,
  );
  try {
    return svgDataUrl(fs.readFileSync(file, 'utf8'));
  } catch {
    // not fetched yet
  }
  try {
    const got = await fetchLimited(iconUrl.href, {
      maxBytes: MAX_ICON_BYTES,
      timeoutMs: ICON_TIMEOUT_MS,
      ...(deps.allowLoopbackHttp ? { allowLoopbackHttp: true } : {}),
    });
    const svg = asSvg(got.body!);
    if (!svg) return undefined;
    writeAtomic(file, svg);
    return svgDataUrl(svg);
  } catch {
    return undefined;
  }
}

export function createIndexSource(deps: IndexSourceDeps) {
  const url = deps.url ?? DEFAULT_REGISTRY_URL;
  const dir = path.join(deps.dataDir, 'acp-registry');
  const at: Place = { deps, url, cacheFile: path.join(dir, 'index.json'), iconDir: path.join(dir, 'icons') };
  let current: Listing | undefined;
  let inFlight: Promise<Listing> | undefined;
  let attemptedAt = -Infinity;

  return {
    url,
    /** The list: cached for an hour; `refresh` asks the live index now. One fetch at a time. */
    listing(opts: { refresh?: boolean } = {}): Promise<Listing> {
      if (!opts.refresh && current) {
        const fresh = current.fetchedAt !== undefined && deps.now() - current.fetchedAt < CACHE_MAX_AGE_MS;
        // Offline, the live index is asked again only after a while (or when the person asks).
        const offline = current.error !== undefined;
        if (fresh || (offline && deps.now() - attemptedAt < RETRY_OFFLINE_MS))
          return Promise.resolve(current);
      }
      inFlight ??= load(at, opts.refresh ?? false)
        .then((l) => {
          attemptedAt = deps.now();
          return (current = l);
        })
        .finally(() => (inFlight = undefined));
      return inFlight;
    },
    icon: (entry: RegistryEntry, listing: Listing) => icon(at, entry, listing),
  };
}

export type IndexSource = ReturnType<typeof createIndexSource>;
