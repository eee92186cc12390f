// The session catalog and upstream monitor (spec: "The session catalog and upstream monitor").
// list()/adopt() are synchronous per the contract; listAsync() does the same scan in yielding
// chunks so thousands of transcripts never block the main process; tick() is one monitor check.
// Everything about one tool lives in its provider module (providers.ts lists them); this file
// only wires them to the gateway's links, sessions and signal log; the listing and its index are
// listing.ts and catalog-index.ts.
// Over 300 lines on purpose: this is the catalog's composition root (local providers, the
// remote catalog over the nodes service the gateway builds, adoption, continue, the monitor's
// cadence); each part is its own module, wired here.
import os from 'node:os';
import type Database from 'better-sqlite3';
import { realScheduler, type Cancel, type Scheduler } from '../scheduler';
import type { NodeAddInput, NodesService } from '../nodes/service';
import type { Consent } from '../trust/consent';
import type {
  Catalog,
  CatalogProvider,
  Logger,
  NodeInfo,
  SessionInfo,
  SessionState,
  Sessions,
} from '../types';
import { createAdopt } from './adopt';
import { createContinue } from './continue';
import { nodeFs, type CatalogFs } from './kit/fsio';
import { createCatalogIndex } from './catalog-index';
import { createListing } from './listing';
import { createRootWatch } from './root-watch';
import type { SqliteOpener } from './kit/sqlite';
import { createLinkRepo, type Link, type LinkRepo } from './links';
import { createMonitor, PROVIDER_BUDGET_MS, type MonitorOwnership } from './monitor';
import { createRemoteCatalog } from './remote';
import { createUpstreamWatch, type UpstreamWatch } from './watch';
import type { ProviderModule, ProviderSource, VisibleMessage } from './provider';
import { PROVIDER_MODULES } from './providers';
import { resolveCatalogRoots, type RootsById } from './roots';
import { guardSource } from './thread-ids';
import { betterSqliteOpener } from './sqlite';

export { ADOPTING_WATCHER, adoptedKey } from './adopt';
export { defaultCatalogRoots, resolveCatalogRoots } from './roots';
export { PROVIDER_MODULES } from './providers';
export type { ProviderModule, VisibleMessage } from './provider';

/** A message adoption or "continue" brings into Sightline's transcript. */
export type ImportedMessage = VisibleMessage;

export const FIRST_CHECK_MS = 15_000;
export const CHECK_EVERY_MS = 60_000;
/** How often the watched files follow the watched links (links adopted or gone elsewhere). */
export const WATCH_SYNC_MS = 1000;

export interface CatalogDeps {
  db: Database.Database;
  sessions: Sessions;
  state: SessionState;
  now: () => number;
  /** Each provider's root, by provider id (missing ones: the provider's default). */
  roots: RootsById;
  logger: Logger;
  importTranscript(sessionKey: string, messages: ImportedMessage[]): void;
  /** Addition: the providers (default PROVIDER_MODULES). */
  providers?: readonly ProviderModule[];
  /** Addition: environment for the upstream CLIs and default roots (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Addition: file system seam for tests (I/O error injection). */
  fs?: CatalogFs;
  /** Addition: how providers open SQLite databases read-only (default better-sqlite3). */
  sqlite?: SqliteOpener;
  /** Addition: host id recorded with adoptions (default os.hostname()). */
  hostId?: string;
  /** Addition: wall-clock budget per provider and check (default 45 s). */
  providerBudgetMs?: number;
  /** Addition: timers of the monitor cadence (default the real ones). */
  scheduler?: Scheduler;
  /**
   * Addition: how an adoption's writes, and each link's part of a check, run as one transaction
   * (the gateway passes its own, which sends push events after the commit; default: a plain
   * transaction on `db`).
   */
  transaction?<T>(fn: () => T): T;
  /** Addition (live transcripts): the visible messages of rows a check consumed, per link. */
  onUpstreamMessages?(link: Link, messages: VisibleMessage[]): void;
  /** Addition: the monitor checks only the links of sessions this gateway runs (default: all). */
  ownership?: MonitorOwnership;
  /**
   * Addition (paired nodes): the nodes service, built by the composition root (it removes a
   * removed node's links through the same `links`); the catalog reads remote sessions through it.
   */
  nodes: NodesService;
  /** Addition: the upstream links repository shared with the nodes service (default: its own). */
  links?: LinkRepo;
  /** Addition (paired nodes): how long one request to a node may take (default 20 s). */
  nodeRequestTimeoutMs?: number;
  /**
   * Addition: read watched links on their files' events between checks (default true; false:
   * the cadence alone, as on a file system without events).
   */
  fileEvents?: boolean;
  /**
   * Addition: the catalog may hold other sessions now (a transcript appeared or went in a watched
   * root while the catalog runs): the gateway pushes `catalog:changed`.
   */
  onChanged?(): void;
  /** Addition: the person's consent to a continue command (default: none asked, trusted). */
  confirm?: Consent['confirm'];
}

export interface CatalogNodes {
  add(input: NodeAddInput): Promise<NodeInfo>;
  list(): NodeInfo[];
  remove(nodeId: string): void;
  /** Addition: a new name for people. */
  rename(nodeId: string, name: string): NodeInfo;
}

export type CatalogService = Omit<Catalog, 'adopt'> & {
  adopt(input: { provider: CatalogProvider | string; threadId: string }): SessionInfo;
  /** A session on a paired node (hostId = its node id): resolves once adopted. */
  adopt(input: {
    provider: CatalogProvider | string;
    threadId: string;
    hostId?: string;
  }): SessionInfo | Promise<SessionInfo>;
  nodes: CatalogNodes;
  continue(sessionKey: string, text: string): Promise<void>;
  /** Addition: remember a text Sightline sent into an adopted session by other means. */
  rememberOwnText(sessionKey: string, text: string): void;
  start(): void;
  stop(): void;
  /** Addition (tests, benchmarks): how many upstream files are watched for events now. */
  watchedFiles(): number;
  /** Addition (tests, benchmarks): how many catalog folders are watched for new transcripts. */
  watchedFolders(): number;
  /** Addition (tests, benchmarks): resolves once what the listings read is in the catalog index. */
  indexed(): Promise<void>;
};

/** The files whose changes may mean news for a link: the provider's, or a transcript file's path. */
function watchPaths(source: ProviderSource | undefined, l: Link): string[] {
  if (source?.watchPaths) return source.watchPaths(l.ref);
  return l.ref.kind === 'file' && typeof l.ref.path === 'string' ? [l.ref.path] : [];
}

/**
 * The monitor's cadence: one check at a time (a caller during a check waits for that check), the
 * first soon after start and then every CHECK_EVERY_MS, and the watched links' files followed
 * after each check and every WATCH_SYNC_MS. `syncLinks` undefined: file events are off.
 */
function checkLoop(d: {
  monitor: Pick<ReturnType<typeof createMonitor>, 'tick' | 'followRemote'>;
  watch: UpstreamWatch;
  scheduler: Scheduler;
  syncLinks: (() => Link[]) | undefined;
  logger: Logger;
}) {
  let stopped = true;
  // Bumped by stop(): a check in flight ends before its next link (the database may be closing).
  let epoch = 0;
  let running: Promise<void> | undefined;
  let cancel: Cancel | undefined;
  let stopSync: Cancel | undefined;

  function syncWatch(): void {
    if (stopped || !d.syncLinks) return;
    try {
      const links = d.syncLinks();
      d.watch.sync(links);
      d.monitor.followRemote(links);
    } catch (err) {
      d.logger.warn('catalog: cannot follow the watched links', { error: String(err) });
    }
  }

  function tick(): Promise<void> {
    const at = epoch;
    running ??= d.monitor
      .tick(() => epoch !== at)
      .finally(() => {
        running = undefined;
        syncWatch();
        d.watch.done();
      });
    return running;
  }

  function schedule(ms: number): void {
    cancel = d.scheduler.after(ms, () => {
      void tick().finally(() => {
        if (!stopped) schedule(CHECK_EVERY_MS);
      });
    });
  }

  return {
    tick,
    syncWatch,
    busy: () => running !== undefined,
    /** Started and not stopped (its timers and file events run). */
    started: () => !stopped,
    /** False when it was running already. */
    start(): boolean {
      if (!stopped) return false;
      stopped = false;
      schedule(FIRST_CHECK_MS);
      syncWatch();
      stopSync = d.scheduler.every(WATCH_SYNC_MS, syncWatch);
      return true;
    },
    /**
     * Timers end and a check in flight stops before its next link (the gateway closes the
     * database right after). tick() called by hand later still works.
     */
    stop(): void {
      stopped = true;
      epoch++;
      cancel?.();
      cancel = undefined;
      stopSync?.();
      stopSync = undefined;
      d.watch.close();
    },
  };
}

/**
 * The catalog's composition root, long on purpose: it only wires the parts (local providers,
 * the remote catalog, adoption, the monitor and its check loop, the file watches, the listing,
 * continue), each its own module; splitting the wiring would hide which part gets what.
 */
export function createCatalog(deps: CatalogDeps): CatalogService {
  const io = { fs: deps.fs ?? nodeFs, sqlite: deps.sqlite ?? betterSqliteOpener };
  const hostId = deps.hostId ?? os.hostname();
  const scheduler = deps.scheduler ?? realScheduler;
  const links = deps.links ?? createLinkRepo(deps.db);
  const modules = deps.providers ?? PROVIDER_MODULES;
  const roots = resolveCatalogRoots(deps.roots, deps.env ?? process.env, modules);
  const providers = new Map<string, { module: ProviderModule; source: ProviderSource; root: string }>();
  for (const m of modules) {
    const root = roots[m.id]!;
    providers.set(m.id, { module: m, source: guardSource(m, m.open(root, io)), root });
  }
  const budgetMs = deps.providerBudgetMs ?? PROVIDER_BUDGET_MS;
  const nodes = deps.nodes;
  const adoptDeps = {
    sessions: deps.sessions,
    state: deps.state,
    links,
    logger: deps.logger,
    now: deps.now,
    importTranscript: deps.importTranscript,
    transaction: deps.transaction ?? (<T>(fn: () => T): T => deps.db.transaction(fn)()),
  };
  const remote = createRemoteCatalog({
    nodes,
    links,
    logger: deps.logger,
    now: deps.now,
    modules: new Map(modules.map((m) => [m.id, m])),
    adopt: adoptDeps,
    requestTimeoutMs: deps.nodeRequestTimeoutMs ?? 20_000,
    budgetMs,
    visible: deps.onUpstreamMessages !== undefined,
    // Nodes watch their links' files and push only while this catalog follows file events.
    pushes: () => deps.fileEvents !== false && loop.started(),
  });
  const monitor = createMonitor({
    links,
    state: deps.state,
    now: deps.now,
    logger: deps.logger,
    sources: new Map([...providers].map(([id, p]) => [id, p.source])),
    budgetMs,
    remote: remote.checks,
    ...(deps.onUpstreamMessages ? { onMessages: deps.onUpstreamMessages } : {}),
    ...(deps.ownership ? { ownership: deps.ownership } : {}),
    ...(deps.transaction ? { transaction: deps.transaction } : {}),
  });
  const adopt = createAdopt({ ...adoptDeps, hostId }, providers);
  const watch = createUpstreamWatch({
    logger: deps.logger,
    pathsOf: (l) =>
      remote.checks.isRemote(l.hostId) ? [] : watchPaths(providers.get(l.provider)?.source, l),
    probe: (key, deleted) => monitor.checkOne(key, deleted),
    busy: () => loop.busy(),
  });
  const index = createCatalogIndex(deps.db, deps.logger);
  const rootWatch = createRootWatch({ logger: deps.logger, onChanged: () => deps.onChanged?.() });
  const { list, listAsync } = createListing({
    providers,
    index,
    logger: deps.logger,
    hostId,
    hostName: os.hostname(),
    adoptedKeys: () => links.keys(),
    remote: () => remote.list(),
    onUnits: (id, units) => rootWatch.follow(providers.get(id)!.root, units),
  });
  const loop = checkLoop({
    monitor,
    watch,
    scheduler,
    syncLinks: deps.fileEvents === false ? undefined : () => links.watched(),
    logger: deps.logger,
  });
  const { tick, syncWatch } = loop;

  function rememberOwnText(sessionKey: string, text: string): void {
    links.addOwnText(sessionKey, text, deps.now());
  }

  const continueIn = createContinue({
    links,
    nodes,
    providers,
    sessions: deps.sessions,
    env: deps.env ?? process.env,
    now: deps.now,
    importTranscript: deps.importTranscript,
    live: deps.onUpstreamMessages !== undefined,
    remoteContinue: (link, text) => remote.continue(link, text),
    rememberOwnText,
    check: () => void tick(),
    ...(deps.confirm ? { confirm: deps.confirm } : {}),
  });

  function adoptAny(input: {
    provider: CatalogProvider | string;
    threadId: string;
    hostId?: string;
  }): SessionInfo | Promise<SessionInfo> {
    const h = input?.hostId;
    if (h !== undefined && h !== hostId) return remote.adopt({ ...input, hostId: h });
    const info = adopt(input);
    syncWatch();
    return info;
  }

  return {
    list,
    listAsync,
    adopt: adoptAny as CatalogService['adopt'],
    nodes: {
      add: (input) => nodes.add(input),
      list: () => nodes.list(),
      remove: (id) => nodes.remove(id),
      rename: (id, name) => nodes.rename(id, name),
    },
    tick,
    watchedFiles: () => watch.size(),
    indexed: () => index.settled(),
    watchedFolders: () => rootWatch.size(),
    continue: continueIn,
    rememberOwnText,
    start() {
      if (!loop.start()) return;
      if (deps.fileEvents !== false && deps.onChanged) {
        rootWatch.start();
        for (const p of providers.values()) rootWatch.follow(p.root, []);
      }
    },
    stop() {
      loop.stop();
      rootWatch.close();
    },
  };
}
