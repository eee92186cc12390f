// The catalog listing: every provider's units described (from the catalog index when a unit's
// stamp is unchanged), this machine's entries marked adopted, the nodes' entries added, newest
// first. list() is synchronous (the contract); listAsync() runs the same scan in slices of about
// 8 ms separated by setImmediate, so the main process keeps serving while thousands of
// transcripts are read.
import type { CatalogEntry, Logger } from '../types';
import { adoptedKey } from './adopt';
import type { CatalogIndex, IndexPass } from './catalog-index';
import { isNotFound } from './kit/fsio';
import type { Located, ProviderSource } from './provider';

/** One provider's part of one listing: its index pass and the units that had a stamp. */
interface Pass {
  index: IndexPass;
  stamped: string[];
}

export interface ListingDeps {
  providers: ReadonlyMap<string, { source: ProviderSource }>;
  index: CatalogIndex;
  logger: Logger;
  hostId: string;
  hostName: string;
  /** The session keys of the adopted links. */
  adoptedKeys(): Set<string>;
  /** The paired nodes' entries. */
  remote(): Promise<CatalogEntry[]>;
  /** The units one provider's listing found (the root watch follows their folders). */
  onUnits?(providerId: string, units: readonly string[]): void;
}

/** This machine's entries (each once, adopted ones marked) and the nodes', newest first. */
function finish(deps: ListingDeps, found: Located[], remoteEntries: CatalogEntry[] = []): CatalogEntry[] {
  const adopted = deps.adoptedKeys();
  const seen = new Set<string>();
  const out: CatalogEntry[] = [];
  for (const f of found) {
    const id = `${f.entry.provider}:${f.entry.threadId}`;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push({
      ...f.entry,
      hostId: deps.hostId,
      hostName: deps.hostName,
      remote: false,
      ...(adopted.has(adoptedKey(f.entry.provider, f.entry.threadId)) ? { adopted: true } : {}),
    });
  }
  out.push(...remoteEntries);
  return out.sort((a, b) => (b.lastActivityAt ?? 0) - (a.lastActivityAt ?? 0));
}

export function createListing(deps: ListingDeps) {
  const { logger } = deps;

  function unitsOf(id: string, source: ProviderSource): string[] {
    try {
      return source.units();
    } catch (err) {
      logger.warn('catalog: cannot list sessions', { provider: id, error: String(err) });
      return [];
    }
  }

  /** One unit's sessions: the index's while its stamp holds, else read (and indexed). */
  function describe(id: string, source: ProviderSource, unit: string, pass: Pass): Located[] {
    try {
      const stamp = source.stamp?.(unit);
      if (stamp === undefined) return source.describe(unit);
      pass.stamped.push(unit);
      const known = pass.index.get(unit, stamp);
      if (known) return known;
      const found = source.describe(unit);
      pass.index.put(unit, stamp, found);
      return found;
    } catch (err) {
      if (!isNotFound(err))
        logger.warn('catalog: cannot read a session', { provider: id, error: String(err) });
      return [];
    }
  }

  function pass(id: string): Pass {
    return { index: deps.index.pass(id), stamped: [] };
  }

  function list(): CatalogEntry[] {
    const found: Located[] = [];
    for (const [id, p] of deps.providers) {
      const one = pass(id);
      const units = unitsOf(id, p.source);
      deps.onUnits?.(id, units);
      for (const u of units) found.push(...describe(id, p.source, u, one));
      one.index.done(one.stamped);
    }
    return finish(deps, found);
  }

  async function listAsync(): Promise<CatalogEntry[]> {
    // The nodes answer while this machine's folders are scanned.
    const remoteEntries = deps.remote();
    const found: Located[] = [];
    let slice = performance.now();
    for (const [id, p] of deps.providers) {
      const units = unitsOf(id, p.source);
      deps.onUnits?.(id, units);
      await new Promise((r) => setImmediate(r));
      const one = pass(id);
      for (const u of units) {
        found.push(...describe(id, p.source, u, one));
        // Give the event loop back every few milliseconds of work.
        if (performance.now() - slice > 8) {
          await new Promise((r) => setImmediate(r));
          slice = performance.now();
        }
      }
      one.index.done(one.stamped);
    }
    return finish(deps, found, await remoteEntries);
  }

  return { list, listAsync };
}
