// The session catalog and upstream monitor (spec: "The session catalog and upstream monitor").
// list()/adopt() are synchronous per the contract; listAsync() does the same scan in yielding
// chunks so thousands of transcripts never block the main process; tick() is one monitor check.
// Everything about one tool lives in its provider module (providers.ts lists them); this file
// only wires them to the gateway's links, sessions and signal log.
// Over 300 lines on purpose: this is the catalog's composition root (local providers, paired
// nodes, adoption, continue, the monitor's cadence); each part is its own module, wired here.
import os from 'node:os';
import type Database from 'better-sqlite3';
import { notFound } from '../errors';
import { realScheduler, type Cancel, type Scheduler } from '../scheduler';
import { createNodes, type NodeAddInput } from '../nodes/service';
import type { LaunchOptions } from '../nodes/launch';
import type { Consent } from '../trust/consent';
import type {
  Catalog,
  CatalogEntry,
  CatalogProvider,
  GatewayEvent,
  Logger,
  NodeInfo,
  SessionInfo,
  SessionState,
  Sessions,
} from '../types';
import { adoptedKey, createAdopt } from './adopt';
import { cliProgram, continueFolder, runCli } from './continue';
import { isNotFound, nodeFs, type CatalogFs } from './kit/fsio';
import type { SqliteOpener } from './kit/sqlite';
import { createLinkRepo, type Link } from './links';
import { createMonitor, PROVIDER_BUDGET_MS, type MonitorOwnership } from './monitor';
import { createRemoteCatalog } from './remote';
import type { Located, ProviderModule, ProviderSource, VisibleMessage } from './provider';
import { PROVIDER_MODULES } from './providers';
import { resolveCatalogRoots, type RootsById } from './roots';
import { checkThreadId, guardSource } from './thread-ids';
import { betterSqliteOpener } from './sqlite';

export { ADOPTING_WATCHER, adoptedKey } from './adopt';
export { defaultCatalogRoots, resolveCatalogRoots } from './roots';
export { PROVIDER_MODULES } from './providers';
export type { ProviderModule, VisibleMessage } from './provider';

/** A message adoption or "continue" brings into Sightline's transcript. */
export type ImportedMessage = VisibleMessage;

export const FIRST_CHECK_MS = 15_000;
export const CHECK_EVERY_MS = 60_000;

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
  /** Addition (paired nodes): push events (nodes:changed, catalog:changed). */
  emit?(e: GatewayEvent): void;
  /** Addition (paired nodes): how nodes are reached, and how long they may take. */
  nodes?: NodeOptions;
  /** Addition: the person's consent to a continue command (default: none asked, trusted). */
  confirm?: Consent['confirm'];
}

export interface NodeOptions {
  /** The ssh client and options before Sightline's (default ["ssh"]). */
  sshCommand?: readonly string[];
  /** The node file to install on remotes (out/node/sightline-node.mjs). */
  bundle?: string;
  /** Start and hello, SSH included (default 20 s). */
  helloTimeoutMs?: number;
  /** One request (list, probe batch, …) (default 20 s). */
  requestTimeoutMs?: number;
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
};

export function createCatalog(deps: CatalogDeps): CatalogService {
  const io = { fs: deps.fs ?? nodeFs, sqlite: deps.sqlite ?? betterSqliteOpener };
  const hostId = deps.hostId ?? os.hostname();
  const scheduler = deps.scheduler ?? realScheduler;
  const links = createLinkRepo(deps.db);
  const modules = deps.providers ?? PROVIDER_MODULES;
  const roots = resolveCatalogRoots(deps.roots, deps.env ?? process.env, modules);
  const providers = new Map<string, { module: ProviderModule; source: ProviderSource; root: string }>();
  for (const m of modules) {
    const root = roots[m.id]!;
    providers.set(m.id, { module: m, source: guardSource(m, m.open(root, io)), root });
  }
  const emit = deps.emit ?? (() => {});
  const budgetMs = deps.providerBudgetMs ?? PROVIDER_BUDGET_MS;
  const launch: Omit<LaunchOptions, 'helloTimeoutMs'> = {
    sshCommand: deps.nodes?.sshCommand ?? ['ssh'],
    ...(deps.nodes?.bundle ? { bundle: deps.nodes.bundle } : {}),
    ...(deps.env ? { env: deps.env } : {}),
  };
  const nodes = createNodes({
    db: deps.db,
    now: deps.now,
    scheduler,
    logger: deps.logger,
    emit,
    launch,
    helloTimeoutMs: deps.nodes?.helloTimeoutMs ?? 20_000,
    removeLinks: (h) => links.removeHost(h),
    ...(deps.confirm ? { confirm: deps.confirm } : {}),
  });
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
    requestTimeoutMs: deps.nodes?.requestTimeoutMs ?? 20_000,
    budgetMs,
    visible: deps.onUpstreamMessages !== undefined,
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
  const hostName = os.hostname();
  let stopped = true;
  // Bumped by stop(): a check in flight ends before its next link (the database may be closing).
  let epoch = 0;

  function describeSafe(id: string, source: ProviderSource, unit: string): Located[] {
    try {
      return source.describe(unit);
    } catch (err) {
      if (!isNotFound(err))
        deps.logger.warn('catalog: cannot read a session', { provider: id, error: String(err) });
      return [];
    }
  }

  function unitsSafe(id: string, source: ProviderSource): string[] {
    try {
      return source.units();
    } catch (err) {
      deps.logger.warn('catalog: cannot list sessions', { provider: id, error: String(err) });
      return [];
    }
  }

  function finish(found: Located[], remoteEntries: CatalogEntry[] = []): CatalogEntry[] {
    const seen = new Set<string>();
    const out: CatalogEntry[] = [];
    for (const f of found) {
      const id = `${f.entry.provider}:${f.entry.threadId}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const adopted = links.get(adoptedKey(f.entry.provider, f.entry.threadId)) !== undefined;
      out.push({ ...f.entry, hostId, hostName, remote: false, ...(adopted ? { adopted: true } : {}) });
    }
    out.push(...remoteEntries);
    return out.sort((a, b) => (b.lastActivityAt ?? 0) - (a.lastActivityAt ?? 0));
  }

  function list(): CatalogEntry[] {
    const found: Located[] = [];
    for (const [id, p] of providers)
      for (const u of unitsSafe(id, p.source)) found.push(...describeSafe(id, p.source, u));
    return finish(found);
  }

  async function listAsync(): Promise<CatalogEntry[]> {
    // The nodes answer while this machine's folders are scanned.
    const remoteEntries = remote.list();
    const found: Located[] = [];
    let slice = performance.now();
    for (const [id, p] of providers) {
      const units = unitsSafe(id, p.source);
      await new Promise((r) => setImmediate(r));
      for (const u of units) {
        found.push(...describeSafe(id, p.source, u));
        // Give the event loop back every few milliseconds of work.
        if (performance.now() - slice > 8) {
          await new Promise((r) => setImmediate(r));
          slice = performance.now();
        }
      }
    }
    return finish(found, await remoteEntries);
  }

  function rememberOwnText(sessionKey: string, text: string): void {
    links.addOwnText(sessionKey, text, deps.now());
  }

  async function continueIn(sessionKey: string, text: string): Promise<void> {
    if (typeof text !== 'string' || text.trim() === '') throw new Error('text is required');
    const link = links.get(sessionKey);
    if (!link)
      throw notFound(`Unknown sessionKey: ${sessionKey} (not an adopted session with an upstream link)`);
    const p = providers.get(link.provider);
    // Checked again here: a link may come from before ids were checked, or from another gateway.
    const cmd = p?.source.continueCommand?.(checkThreadId(p.module, link.threadId), text);
    if (!p || !cmd)
      throw new Error(
        `Continue in Sightline is not available for ${link.provider} sessions yet: continue it in ${p?.module.label ?? link.provider} itself`,
      );
    const label = deps.sessions.get(sessionKey)?.label ?? link.threadId;
    if (nodes.isNode(link.hostId)) {
      // On a paired node: its CLI runs there (only on a node started with --allow-continue), after
      // the person allowed that CLI in that folder on that node for this session.
      const node = nodes.get(link.hostId)?.name ?? link.hostId;
      await deps.confirm?.(
        {
          kind: 'continue',
          title: `Continue the ${p.module.label} session "${label}" with its CLI on the node "${node}"`,
          command: { program: cmd.command, args: cmd.args, ...(link.cwd ? { cwd: link.cwd } : {}) },
          sessionKey,
        },
        { remember: `continue:${sessionKey}:${link.hostId}:${cmd.command}:${link.cwd ?? ''}` },
      );
      rememberOwnText(sessionKey, text);
      return imported(sessionKey, text, await remote.continue(link, text));
    }
    const env = deps.env ?? process.env;
    const program = cliProgram(cmd.command, env);
    const cwd = continueFolder(link.cwd);
    // The person allows this CLI in this folder for this session once (the text changes each time).
    await deps.confirm?.(
      {
        kind: 'continue',
        title: `Continue the ${p.module.label} session "${label}" with its CLI`,
        command: { program, args: cmd.args, cwd },
        sessionKey,
      },
      { remember: `continue:${sessionKey}:${program}:${cwd}` },
    );
    rememberOwnText(sessionKey, text);
    const { stdout } = await runCli(program, cmd.args, { env, cwd });
    imported(sessionKey, text, stdout);
  }

  /** The sent text and the CLI's printed reply join Sightline's transcript. */
  function imported(sessionKey: string, text: string, stdout: string): void {
    const at = deps.now();
    const messages: ImportedMessage[] = [{ role: 'user', actorType: 'human', text, createdAt: at }];
    // With live transcripts the reply comes from the tool's own transcript, once, at the check
    // started here; the CLI's printed copy is kept only for a link the monitor does not read.
    const live =
      deps.onUpstreamMessages !== undefined && links.watched().some((l) => l.sessionKey === sessionKey);
    if (stdout.trim() && !live)
      messages.push({ role: 'assistant', actorType: 'agent', text: stdout.trim(), createdAt: at });
    deps.importTranscript(sessionKey, messages);
    if (live) void tick();
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

  let cancel: Cancel | undefined;
  function schedule(ms: number): void {
    cancel = scheduler.after(ms, () => {
      void tick().finally(() => {
        if (!stopped) schedule(CHECK_EVERY_MS);
      });
    });
  }

  function adoptAny(input: {
    provider: CatalogProvider | string;
    threadId: string;
    hostId?: string;
  }): SessionInfo | Promise<SessionInfo> {
    const h = input?.hostId;
    return h === undefined || h === hostId ? adopt(input) : remote.adopt({ ...input, hostId: h });
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
    continue: continueIn,
    rememberOwnText,
    start() {
      if (!stopped) return;
      stopped = false;
      schedule(FIRST_CHECK_MS);
      nodes.start();
    },
    stop() {
      // Timers end and a check in flight stops before its next link (the gateway closes the
      // database right after). tick() called by hand later still works.
      stopped = true;
      epoch++;
      cancel?.();
      cancel = undefined;
      nodes.close();
    },
  };
}
