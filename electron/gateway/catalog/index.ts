// The session catalog and upstream monitor (spec: "The session catalog and upstream monitor").
// list()/adopt() are synchronous per the contract; listAsync() does the same scan in yielding
// chunks so thousands of transcripts never block the main process; tick() is one monitor check.
import os from 'node:os';
import type Database from 'better-sqlite3';
import type {
  Catalog,
  CatalogEntry,
  CatalogProvider,
  CatalogRoots,
  Logger,
  SessionInfo,
  SessionState,
  Sessions,
} from '../types';
import { claudeCatalog } from './claude';
import { codexArchiveDir, codexCatalog } from './codex';
import { continueCommand, runCli } from './continue';
import { inodeOf, isNotFound, nodeFs, type CatalogFs } from './fsio';
import { createLinkRepo } from './links';
import { createMonitor } from './monitor';
import { opencodeBaseline, opencodeCatalog } from './opencode';
import { piCatalog } from './pi';
import type { Located, ProviderCatalog } from './provider';
import { readTranscript, type ImportedMessage } from './transcript';
import { zstdSize } from './windows';

export { defaultCatalogRoots, resolveCatalogRoots } from './roots';

export const CATALOG_PROVIDERS: readonly CatalogProvider[] = ['claude', 'codex', 'opencode', 'pi'];
export const ADOPTING_WATCHER = 'agent:main:main';
export const FIRST_CHECK_MS = 15_000;
export const CHECK_EVERY_MS = 60_000;

export interface CatalogDeps {
  db: Database.Database;
  sessions: Sessions;
  state: SessionState;
  now: () => number;
  roots: Required<CatalogRoots>;
  logger: Logger;
  importTranscript(sessionKey: string, messages: ImportedMessage[]): void;
  /** Addition: environment for the upstream CLIs (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Addition: file system seam for tests (I/O error injection). */
  fs?: CatalogFs;
  /** Addition: host id recorded with adoptions (default os.hostname()). */
  hostId?: string;
  /** Addition: wall-clock budget per provider and check (default 45 s). */
  providerBudgetMs?: number;
}

export type CatalogService = Catalog & {
  continue(sessionKey: string, text: string): Promise<void>;
  /** Addition: remember a text Sightline sent into an adopted session by other means. */
  rememberOwnText(sessionKey: string, text: string): void;
  start(): void;
  stop(): void;
};

export function adoptedKey(provider: CatalogProvider, threadId: string): string {
  return `agent:main:adopted:${provider}:${threadId}`;
}

export function createCatalog(deps: CatalogDeps): CatalogService {
  const cfs = deps.fs ?? nodeFs;
  const hostId = deps.hostId ?? os.hostname();
  const links = createLinkRepo(deps.db);
  const providers: Record<CatalogProvider, ProviderCatalog> = {
    claude: claudeCatalog(deps.roots.claude, cfs),
    codex: codexCatalog(deps.roots.codex, cfs),
    opencode: opencodeCatalog(deps.roots.opencode, cfs),
    pi: piCatalog(deps.roots.pi, cfs),
  };
  const monitor = createMonitor({
    links,
    state: deps.state,
    now: deps.now,
    logger: deps.logger,
    fs: cfs,
    codexRoot: deps.roots.codex,
    ...(deps.providerBudgetMs !== undefined ? { budgetMs: deps.providerBudgetMs } : {}),
  });
  let stopped = true;
  // Bumped by stop(): a check in flight ends before its next link (the database may be closing).
  let epoch = 0;

  function describeSafe(p: ProviderCatalog, unit: string): Located[] {
    try {
      return p.describe(unit);
    } catch (err) {
      if (!isNotFound(err))
        deps.logger.warn('catalog: cannot read a session', { provider: p.provider, error: String(err) });
      return [];
    }
  }

  function unitsSafe(p: ProviderCatalog): string[] {
    try {
      return p.units();
    } catch (err) {
      deps.logger.warn('catalog: cannot list sessions', { provider: p.provider, error: String(err) });
      return [];
    }
  }

  function finish(found: Located[]): CatalogEntry[] {
    const seen = new Set<string>();
    const out: CatalogEntry[] = [];
    for (const f of found) {
      const id = `${f.entry.provider}:${f.entry.threadId}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const adopted = links.get(adoptedKey(f.entry.provider, f.entry.threadId)) !== undefined;
      out.push({ ...f.entry, ...(adopted ? { adopted: true } : {}) });
    }
    return out.sort((a, b) => (b.lastActivityAt ?? 0) - (a.lastActivityAt ?? 0));
  }

  function list(): CatalogEntry[] {
    const found: Located[] = [];
    for (const p of Object.values(providers)) for (const u of unitsSafe(p)) found.push(...describeSafe(p, u));
    return finish(found);
  }

  async function listAsync(): Promise<CatalogEntry[]> {
    const found: Located[] = [];
    let slice = performance.now();
    for (const p of Object.values(providers)) {
      const units = unitsSafe(p);
      await new Promise((r) => setImmediate(r));
      for (const u of units) {
        found.push(...describeSafe(p, u));
        // Give the event loop back every few milliseconds of work.
        if (performance.now() - slice > 8) {
          await new Promise((r) => setImmediate(r));
          slice = performance.now();
        }
      }
    }
    return finish(found);
  }

  function baseline(
    provider: CatalogProvider,
    loc: Located,
  ): { offset: number; inode: string | null; markerJson: string | null } {
    const ref = loc.ref;
    if (ref.kind !== 'file')
      return { offset: 0, inode: null, markerJson: JSON.stringify(opencodeBaseline(ref)) };
    try {
      const st = cfs.statSync(ref.path);
      return { offset: st.size, inode: inodeOf(st), markerJson: null };
    } catch (err) {
      if (provider !== 'codex' || !isNotFound(err)) throw err;
      // A cold (compressed) rollout: the offset is its decompressed size; any inode continues it.
      return { offset: zstdSize(cfs, `${ref.path}.zst`), inode: null, markerJson: null };
    }
  }

  function adopt(input: { provider: CatalogProvider; threadId: string }): SessionInfo {
    const provider = input?.provider;
    const threadId = typeof input?.threadId === 'string' ? input.threadId.trim() : '';
    if (!CATALOG_PROVIDERS.includes(provider))
      throw new Error(`Unknown catalog provider: ${String(provider)}`);
    if (!threadId) throw new Error('threadId is required');
    const loc = providers[provider].find(threadId);
    if (!loc)
      throw new Error(
        `Unknown thread: ${provider} session ${threadId} was not found in ${deps.roots[provider]}`,
      );
    const key = adoptedKey(provider, loc.entry.threadId);
    const marker = baseline(provider, loc);
    let info = deps.sessions.get(key);
    if (!info) {
      info = deps.sessions.create({ key, label: loc.entry.title });
      try {
        deps.importTranscript(key, readTranscript(provider, loc.ref, cfs));
      } catch (err) {
        deps.logger.warn('catalog: transcript import failed', { sessionKey: key, error: String(err) });
      }
    }
    deps.state.record({
      sessionKey: key,
      kind: 'adopted',
      actorType: 'human',
      summary: `adopted from ${provider}`,
      payload: { catalogId: provider, hostId },
    });
    links.put(
      { sessionKey: key, provider, threadId: loc.entry.threadId, hostId, ref: loc.ref, ...marker },
      deps.now(),
    );
    deps.state.registerWatch(ADOPTING_WATCHER, key);
    return deps.sessions.get(key) ?? info;
  }

  function rememberOwnText(sessionKey: string, text: string): void {
    links.addOwnText(sessionKey, text, deps.now());
  }

  async function continueIn(sessionKey: string, text: string): Promise<void> {
    if (typeof text !== 'string' || text.trim() === '') throw new Error('text is required');
    const link = links.get(sessionKey);
    if (!link)
      throw new Error(`Unknown sessionKey: ${sessionKey} (not an adopted session with an upstream link)`);
    const cmd = continueCommand(link.provider, link.threadId, text);
    rememberOwnText(sessionKey, text);
    const cwd = providers[link.provider].find(link.threadId)?.entry.cwd;
    const { stdout } = await runCli(cmd, { env: deps.env ?? process.env, ...(cwd ? { cwd } : {}) });
    const at = deps.now();
    const messages: ImportedMessage[] = [{ role: 'user', actorType: 'human', text, createdAt: at }];
    if (stdout.trim())
      messages.push({ role: 'assistant', actorType: 'agent', text: stdout.trim(), createdAt: at });
    deps.importTranscript(sessionKey, messages);
  }

  let running: Promise<void> | undefined;
  function tick(): Promise<void> {
    // One check at a time: a caller during a check waits for that check.
    const at = epoch;
    running ??= monitor
      .tick(() => epoch !== at)
      .finally(() => {
        running = undefined;
      });
    return running;
  }

  let timer: NodeJS.Timeout | undefined;
  function schedule(ms: number): void {
    timer = setTimeout(() => {
      void tick().finally(() => {
        if (!stopped) schedule(CHECK_EVERY_MS);
      });
    }, ms);
    timer.unref?.();
  }

  return {
    list,
    listAsync,
    adopt,
    tick,
    continue: continueIn,
    rememberOwnText,
    start() {
      if (!stopped) return;
      stopped = false;
      schedule(FIRST_CHECK_MS);
    },
    stop() {
      // Timers end and a check in flight stops before its next link (the gateway closes the
      // database right after). tick() called by hand later still works.
      stopped = true;
      epoch++;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}

/** Where archived Codex rollouts live for a sessions root (exported for tools and tests). */
export function codexArchive(roots: Required<CatalogRoots>): string {
  return codexArchiveDir(roots.codex);
}
