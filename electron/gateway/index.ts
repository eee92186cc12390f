// createGateway(): the composition root of the gateway. It only wires: stores, then the state
// core, the turn path, the services that use them, then timers. Plain Node; never imports Electron.
// Over 330 lines on purpose: the whole wiring reads in one place, in the order things are built.
import { createPersonStores, type PersonStores } from './person';
import os from 'node:os';
import path from 'node:path';
import { isMainKey, normalizeSessionKey } from '../../shared/session-keys';
import { createCatalog, resolveCatalogRoots, type CatalogService } from './catalog';
import { createLinkRepo } from './catalog/links';
import { createBackupService, type BackupService } from './db/backups';
import { openDatabase, type Db } from './db/open';
import { createTransactions } from './db/transactions';
import { createMcp, type Mcp } from './mcp';
import { createCredentialRepository } from './mcp/credential-repository';
import { createCredentialStore } from './mcp/credentials';
import { resolveShim } from './mcp/shim';
import { consoleLogger, EventHub } from './events';
import { createNodes } from './nodes/service';
import { AgentLinks } from './nodes/agents';
import { createOwnership, type Ownership } from './ownership';
import { createOwnershipRepository } from './ownership/repository';
import { createAcpProfileStore } from './runtime/acp/profile-store';
import { createAcpRegistry, type AcpRegistry } from './installers/install';
import { createAcpProfiles, type AcpProfiles } from './runtime/acp/profiles';
import { createAcpSessions } from './runtime/acp/sessions';
import { createAcpAuth, type AcpAuth } from './runtime/acp/auth';
import { createLoginTerminals, type LoginTerminals } from './runtime/acp/login-terminal';
import { createAskToSend } from './runtime/ask-to-send';
import { childRunEnded } from './runtime/child-outcome';
import { createNativeRunner } from './runtime/native/runner';
import { createRunLifecycle } from './runtime/run-lifecycle';
import { createRunners, type RunnerFactory } from './runtime/runner';
import { createAdoptedRunner, createExternalRunner } from './runtime/upstream';
import { agentTools } from './runtime/agent-tools';
import { createAgentRepository } from './runtime/agent-repository';
import { createAgentsService, createAgentStore } from './runtime/agents';
import { compactIfNeeded } from './runtime/native/compaction';
import { createRunControl, type RunControl } from './runtime/control';
import { resetDemo, startDemo } from './runtime/demo';
import { createGoals, type Goals } from './runtime/goals';
import { createGoalStore } from './runtime/goal-store';
import { createHeartbeats } from './runtime/heartbeats';
import { createHuman, type Human } from './runtime/human';
import { createMessages } from './runtime/messages';
import { createModelCache } from './runtime/native/models';
import { createPermissions, type Permissions } from './runtime/permissions';
import { createRunStore } from './runtime/runs';
import { createSpawner } from './runtime/spawn';
import { createStarter } from './runtime/start';
import { TurnEngine } from './runtime/native/turns';
import { runWakes } from './runtime/wake';
import { realScheduler } from './scheduler';
import { createSessions } from './sessions/service';
import { createSupervision } from './supervision';
import type { LiveOutputs } from './runtime/live-output';
import type { StatusTracker } from './runtime/status';
import type { NoticeHistoryStore } from './state/notice-history';
import { createNoticeRepository } from './state/notice-repository';
import { createSessionStore } from './sessions/store';
import { createTranscriptStore, type MessageHit } from './sessions/transcripts';
import { NoticeQueues } from './state/notice-queue';
import { createNotices, type Notices } from './state/notices';
import { createStateCore, type StateCore } from './state/session-state';
import { HeartbeatWaker } from './state/waker';
import { createTools } from './tools';
import { ToolRegistry } from './tools/registry';
import { sessionNoticesTool } from './tools/notice-tools';
import { sessionStatusTool, sessionsListTool } from './tools/session-tools';
import { createConsent, type Consent } from './trust/consent';
import { createConsentStore } from './trust/consent-store';
import { createSecrets } from './trust/secrets';
import { createWorktrees, reviewMessage, type Worktrees } from './worktrees';
import type { ReviewInput, WorktreeImpact, WorktreeProbe, WorktreeStats } from '../../shared/ipc/worktrees';
import type {
  CatalogRoots,
  GatewayOptions,
  GatewaySessions,
  RunInfo,
  SecretStorageInfo,
  Tools,
  TranscriptMessage,
} from './types';
import { createNodeRepository } from './nodes/repository';

export type * from './types';
export type * from './runtime/runner';
import { GatewayError } from './errors';
export { GatewayError } from './errors';
export { NotOwnerError } from './ownership';
export type { AskPerson, CommandLine, ConsentQuestion } from './trust/consent';
export type { SafeStorageLike } from './trust/secrets';
export { realScheduler } from './scheduler';

/** How often a gateway looks for notices committed by other gateways on the same database. */
export const SHARED_POLL_MS = 1000;

export interface Gateway {
  sessions: GatewaySessions;
  state: StateCore;
  notices: Notices;
  tools: Tools;
  human: Human;
  events: EventHub;
  waker: HeartbeatWaker;
  agents: ReturnType<typeof createAgentsService>;
  transcripts: {
    page(
      sessionKey: string,
      opts?: { beforeId?: number; limit?: number },
    ): { messages: TranscriptMessage[]; hasMore: boolean };
    all(sessionKey: string): TranscriptMessage[];
    /** The files the session's agent changed (from its tool calls' diffs). */
    changedFiles(sessionKey: string): string[];
    /** Messages whose text has every word (as word prefixes), best first (issue 17.5). */
    search(text: string, limit?: number): MessageHit[];
  };
  runtime: RunControl & {
    startDemo(): Promise<{ coordinatorKey: string; workerKeys: string[] }>;
    /** Deletes the demo's sessions and starts it again. */
    resetDemo(): Promise<{ coordinatorKey: string; workerKeys: string[] }>;
  };
  /** The session's runs, oldest first. */
  runs: { list(sessionKey: string): RunInfo[] };
  catalog: CatalogService;
  /** Agents on paired nodes (issue 30.1): a folder on a node, checked there (its real path). */
  nodeAgents: { checkFolder(nodeId: string, folder: string): Promise<string> };
  /** Where the catalog looks (after options and environment). */
  catalogRoots: Required<CatalogRoots>;
  /** Addition (issue 17): one derived status per session; `seen` when the person opens one. */
  status: StatusTracker;
  /** Addition: running steps' output so far and each session's last activity line. */
  live: LiveOutputs;
  /** Addition: the notices watchers read, and the session_status call that reconciled each. */
  noticeHistory: NoticeHistoryStore;
  acp: {
    profiles: AcpProfiles;
    /** Questions for the person: ACP permission requests and agents' sends into adopted sessions. */
    permissions: Permissions;
    /** The ACP registry: its agents, and installing one as a profile. */
    registry: AcpRegistry;
    /** Addition: an agent that answered authRequired, and the person's ways forward. */
    auth: AcpAuth;
    /** Addition: terminal auth methods, the agent's login command on a pty the person sees. */
    login: LoginTerminals;
  };
  /** The person's consent to command lines; hosts plug their way of asking (`consent.plug`). */
  consent: Consent;
  /** Where secrets live at rest (sealed with the keyring, or a plain statement why not). */
  secrets: { info: SecretStorageInfo };
  goals: Goals;
  /** The session tools over MCP (issue 16): credentials for ACP children and outside agents. */
  mcp: Pick<Mcp, 'issue' | 'issueForNewSession' | 'revoke' | 'list' | 'endpoint' | 'status'>;
  /** The person's own state: inbox dismissals and UI preferences. */
  person: PersonStores;
  /**
   * Issue 26: sessions' own git worktrees (contract: get/diff/merge/discard/overlaps). Additions:
   * `probe` (what a start in a folder will do), `impact` (what discarding loses), `rebase`,
   * `review` (comments sent as one human message), `stats` (a fleet row's counts), `forget`
   * (keep the folder and branch, stop tracking), `recovered` (start-up clean-up done), `changes`
   * (the diff without its patch) and `filePatch` (one file's patch, when a person opens it).
   */
  worktrees: Pick<
    Worktrees,
    'get' | 'diff' | 'changes' | 'filePatch' | 'merge' | 'discard' | 'overlaps' | 'rebase' | 'forget'
  > & {
    probe(cwd: string): Promise<WorktreeProbe>;
    impact(sessionKey: string): Promise<WorktreeImpact>;
    stats(sessionKey: string): WorktreeStats | undefined;
    review(sessionKey: string, review: ReviewInput, opts?: { actorId?: string }): Promise<void>;
    recovered: Promise<void>;
  };
  /** The database handle, for the catalog, browser mode and tests in this process. */
  db: Db;
  /** Rolling daily backups of the database (started with autoStart). */
  backups: BackupService;
  /**
   * Addition (issue 13.5): which sessions this gateway runs when several share the database.
   * `owns(key)` is the question to ask before acting for a session (serving its MCP calls,
   * checking its upstream link); `fenced(key, write)` runs a write that must not land once another
   * gateway holds the session.
   */
  ownership: Pick<Ownership, 'gatewayId' | 'owns' | 'holds' | 'epoch' | 'fenced'>;
  close(): void;
}

/** `runners`: more kinds of session runner, asked before the built-in ones (runtime/runner.ts). */
export function createGateway(options: GatewayOptions, extra: { runners?: RunnerFactory[] } = {}): Gateway {
  if (!options || typeof options.dataDir !== 'string' || options.dataDir.length === 0) {
    throw new Error('createGateway: dataDir is required');
  }
  const now = options.now ?? Date.now;
  const scheduler = options.scheduler ?? realScheduler;
  const logger = options.logger ?? consoleLogger;
  const autoStart = options.autoStart ?? true;

  // Storage: the database, one transaction helper, the push events that follow commits.
  const db = openDatabase(options.dataDir);
  const backups = createBackupService({ db, dataDir: options.dataDir, now, scheduler, logger });
  const tx = createTransactions(db, (err) =>
    logger.warn('gateway: after-commit step failed', { error: String(err) }),
  );
  const events = new EventHub(logger, tx);
  const emit = events.emit;
  const store = createSessionStore(db, now);
  const transcripts = createTranscriptStore(db, now);
  const secrets = createSecrets(options.secrets);
  const agentStore = createAgentStore(createAgentRepository(db), now, secrets, logger);
  const runs = createRunStore(db);
  const credentials = createCredentialStore(createCredentialRepository(db), now);
  const consent = createConsent({ store: createConsentStore(db), now, emit });
  const permissions = createPermissions({ now, emit });
  const profileStore = createAcpProfiles({
    store: createAcpProfileStore(db, now, secrets, logger),
    consent,
  });
  const acpRegistry = createAcpRegistry({
    db,
    dataDir: options.dataDir,
    now,
    logger,
    emit,
    profiles: profileStore,
    ...(options.acpRegistryUrl ? { url: options.acpRegistryUrl } : {}),
    ...(options.acpRegistryAllowLoopbackHttp ? { allowLoopbackHttp: true } : {}),
    ...(options.acpMaxDownloadBytes ? { maxDownloadBytes: options.acpMaxDownloadBytes } : {}),
  });
  // Removing a profile installed from the registry removes its record and downloaded folder too.
  const acpProfiles: AcpProfiles = {
    ...profileStore,
    remove: (id: string) => {
      const removed = profileStore.remove(id);
      if (removed) acpRegistry.forget(id);
      return removed;
    },
  };
  // This gateway's lock, then the sessions it runs: gone gateways' sessions are taken over now.
  const ownership = createOwnership({
    repo: createOwnershipRepository(db),
    tx,
    dataDir: options.dataDir,
    logger,
  });
  const atStart = ownership.start();

  // The state core: signal log, cursors, notices and wakes.
  const queues = new NoticeQueues((sessionKey, entry) => emit({ type: 'notice:queued', sessionKey, entry }));
  const waker = new HeartbeatWaker(
    now,
    (key) => (isMainKey(key) || agentStore.isMainKey(key)) && ownership.owns(key),
    scheduler,
  );
  const state = createStateCore({
    db,
    now,
    logger,
    queues,
    waker,
    sessionExists: (key) => store.get(key) !== undefined,
    hasParent: (key, agentId) => store.hasParent(key, agentId),
    emit,
    afterCommit: tx.afterCommit,
    ownership,
    onOwnershipChange({ claimed, lost }) {
      if (claimed.length) runs.failInterrupted(now(), claimed);
      for (const key of lost) {
        runners.forget(key);
        waker.forget(key);
      }
    },
  });
  const notices = createNotices({ queues, state, emit, owns: ownership.owns });
  const person = createPersonStores(db);
  const worktrees = createWorktrees({
    db,
    now,
    logger,
    scheduler,
    root: options.worktreesDir ?? path.join(options.dataDir, 'worktrees'),
    indexDir: path.join(options.dataDir, 'worktree-index'),
    session: (key) => store.get(key),
    changed: (sessionKey) => emit({ type: 'session:changed', sessionKey }),
    overlapsChanged: () => emit({ type: 'worktrees:changed' }),
    notify: (watcher, text, contextKey) => void notices.enqueue(watcher, { text, contextKey }),
  });
  const supervision = createSupervision({
    notices: createNoticeRepository(db),
    seen: person.seen,
    now,
    events,
    lastMessageId: (key) => transcripts.page(key, { limit: 1 }).messages[0]?.id ?? 0,
  });

  // The turn path: every session is run by one runner (native turns, an ACP agent, an adopted
  // session's CLI, an outside agent), each run through one lifecycle.
  const registry = new ToolRegistry();
  const lifecycle = createRunLifecycle({
    now,
    runs,
    emit,
    notices,
    // A spawned child's outcome is its parent's next turn, whatever runs the parent.
    announce(childKey, run, spawn, text) {
      const announcement = childRunEnded({ state, store }, childKey, run, spawn, text);
      if (!announcement || !spawn.parentKey) return;
      if (!runners.system(spawn.parentKey, announcement))
        logger.warn('runtime: the parent is not running in this gateway; announcement dropped', {
          parentKey: spawn.parentKey,
        });
    },
  });
  const engine = new TurnEngine({
    now,
    scheduler,
    logger,
    emit,
    store,
    transcripts,
    agents: agentStore,
    lifecycle,
    registry,
    state,
    providerFor: createModelCache(),
    live: supervision.live,
    ownership,
    afterTurn: (key, agent) => {
      try {
        if (compactIfNeeded({ transcripts, state }, key, agent))
          emit({ type: 'session:changed', sessionKey: key });
      } catch (err) {
        logger.warn('runtime: compaction failed', { sessionKey: key, error: String(err) });
      }
    },
  });
  // An agent's message that makes a real coding agent act waits for the person (issue 29.3).
  const askToSend = createAskToSend(permissions);
  const acp = createAcpSessions({
    now,
    logger,
    emit,
    transcripts,
    lifecycle,
    profiles: acpProfiles,
    permissions,
    consent,
    workRoot: path.join(options.dataDir, 'acp-work'),
    live: supervision.live,
    askToSend,
    parentOf: (key) => store.get(key)?.parentKey,
    // Sightline's MCP server for the agents (declared below; used only once an agent starts).
    mcp: {
      servers: (key, caps, reach) => mcp.acpServers(key, caps, reach),
      release: (key) => mcp.releaseAcp(key),
    },
    // Agents on paired nodes (issue 30.1), through the nodes' links (declared below).
    nodes: {
      name: (id) => agentLinks.name(id),
      ask: (id, op, args) => agentLinks.ask(id, op, args),
      start: (id, args, graceMs, handlers) => agentLinks.start(id, args, graceMs, handlers),
      send: (ch, type, data) => agentLinks.send(ch, type, data),
      request: (ch, op, args) => agentLinks.request(ch, op, args),
      graceMs: () => agentLinks.graceMs(),
    },
  });

  // Services: one function per action, each one transaction, events after the commit.
  const goals = createGoals({ goals: createGoalStore(db), tx, now, state, store, emit });
  const sessions = createSessions({
    tx,
    emit,
    store,
    transcripts,
    state,
    queues,
    waker,
    claim: ownership.claimCreated,
    countRuns: (key) => runs.count(key),
    onReset: (key) => runners.reset(key),
    onDelete: (key) => {
      ownership.forget(key);
      runners.forget(key);
      // Its worktree stays on disk with its branch unless the person discarded it first.
      worktrees.forget(key);
    },
  });
  const catalogRoots = resolveCatalogRoots(options.catalogRoots);
  // Paired nodes: the catalog reads their sessions through this service; a removed node's links go.
  const links = createLinkRepo(db);
  const nodes = createNodes({
    repo: createNodeRepository(db),
    now,
    scheduler,
    logger,
    emit,
    launch: {
      sshCommand: options.nodes?.sshCommand ?? ['ssh'],
      ...(options.nodes?.bundle ? { bundle: options.nodes.bundle } : {}),
    },
    helloTimeoutMs: options.nodes?.helloTimeoutMs ?? 20_000,
    removeLinks: (hostId) => links.removeHost(hostId),
    confirm: consent.confirm,
    // The catalog's id for this machine (catalog/index.ts): no node may claim it.
    localId: os.hostname(),
  });
  let closing = false;
  const agentLinks = new AgentLinks({
    logger,
    connection: (id) => nodes.connection(id),
    name: (id) => nodes.get(id)?.name,
    closing: () => closing,
    // The person's setting (Settings → Nodes), read when a link drops; nodes hear a change at once.
    graceMs: () => person.preferences.get().nodes.agentGraceSeconds * 1000,
  });
  person.preferences.onChange((_, patch) => patch.nodes && agentLinks.graceChanged());
  nodes.onConnection((id, conn) => agentLinks.connected(id, conn));
  const catalog = createCatalog({
    db,
    links,
    nodes,
    sessions,
    state,
    now,
    logger,
    roots: catalogRoots,
    scheduler,
    transaction: (fn) => tx.run(fn),
    ownership,
    confirm: consent.confirm,
    onChanged: () => emit({ type: 'catalog:changed' }),
    ...(options.nodes?.requestTimeoutMs !== undefined
      ? { nodeRequestTimeoutMs: options.nodes.requestTimeoutMs }
      : {}),
    importTranscript(sessionKey, messages) {
      for (const m of messages)
        emit({ type: 'transcript:appended', message: transcripts.append(sessionKey, m) });
    },
    // Live transcripts: what the monitor read upstream, marked as the tool's, in the same
    // transaction as the link's marker (own texts are already in the transcript).
    onUpstreamMessages(link, messages) {
      for (const m of messages) {
        if (m.own) continue;
        const { own: _own, ...message } = m;
        emit({
          type: 'transcript:appended',
          message: transcripts.append(link.sessionKey, { ...message, upstream: link.provider }),
        });
      }
    },
  });
  const mcp = createMcp({
    logger,
    credentials,
    store,
    sessions,
    registry,
    notices,
    recordToolCall: (key, call, text) => acp.recordToolCall(key, call, text),
    shim: resolveShim(options.mcpShim),
    owns: ownership.owns,
    confirm: consent.confirm,
  });
  const runners = createRunners([
    ...(extra.runners ?? []).map((make) => make({ now, logger, emit, transcripts, lifecycle })),
    createNativeRunner({ engine, transcripts, runs, emit, now }),
    acp,
    createAdoptedRunner({
      continueUpstream: (key, text) => catalog.continue(key, text),
      askToSend,
    }),
    createExternalRunner(),
  ]);
  const spawner = createSpawner({ tx, now, emit, sessions, state, transcripts, runs, runners });
  const messages = createMessages({ tx, runners, owns: ownership.owns });
  const human = createHuman({ store, state, messages });
  const start = createStarter({ spawner, store, agents: agentStore, worktrees });
  const control = createRunControl({ engine, runners, runs, goals, store });
  const status = supervision.startStatus({
    live: (key) => runners.status(key),
    latestRun: (key) => runs.latest(key),
    pendingRequests: () => permissions.pending(),
    retryable: (key) => control.retryable(key),
  });
  const heartbeats = createHeartbeats({ agents: agentStore, waker, scheduler });
  const agents = createAgentsService({ tx, agents: agentStore, sessions, heartbeats });

  // The agent tools, one registry for models and `tools.call` alike.
  const describe = (key: string) => control.describe(key);
  registry.register(
    sessionStatusTool({
      sessions: store,
      state,
      describe,
      // The history is a record for the person: a write it cannot make never fails the call.
      onStatus: (...call) => {
        try {
          supervision.history.statusCalled(...call);
        } catch (err) {
          logger.warn('supervision: reconcile not recorded', { error: String(err) });
        }
      },
    }),
  );
  registry.register(sessionsListTool({ sessions: store, state, describe }));
  for (const tool of agentTools({
    store,
    transcripts,
    state,
    agents: agentStore,
    goals,
    messages,
    spawner,
    worktrees,
    nodes,
  }))
    registry.register(tool);
  registry.register(sessionNoticesTool({ notices }));

  // Start-up: the default agent, runs a crash cut short, pending notices from durable cursors
  // (then prune; also without timers), wakes; timers only with autoStart.
  agents.ensureDefault();
  agentStore.resealAll();
  acpProfiles.resealAll();
  // Runs a crash cut short: all of them, unless other gateways run theirs (then those taken over).
  runs.failInterrupted(now(), atStart.alone ? undefined : atStart.claimed);
  state.sweep();
  // An agent's activity in a worktree: its diff is computed again shortly after (counts, overlaps).
  const login = createLoginTerminals({
    sessions: acp,
    cwdOf: (key) => {
      const info = sessions.get(key);
      return info?.worktree?.path ?? info?.cwd ?? os.homedir();
    },
    confirm: consent.confirm,
    emit,
  });
  const stopLoginWatch = events.on((e) => {
    if (e.type === 'session:deleted') login.closeSession(e.sessionKey);
  });
  const stopWorktreeWatch = events.on((e) => {
    const key =
      e.type === 'run:changed'
        ? e.run.sessionKey
        : e.type === 'transcript:appended'
          ? e.message.sessionKey
          : undefined;
    if (key !== undefined && worktrees.has(key)) worktrees.refresh(key);
  });
  const recovered = worktrees
    .recover()
    .catch((err) => logger.warn('worktrees: start-up check failed', { error: String(err) }));
  const stopWakes = runWakes({ waker, store, engine, scheduler, immediate: autoStart });
  let stopSharedPoll: (() => void) | undefined;
  if (autoStart) {
    waker.enableTimers(true);
    heartbeats.start();
    catalog.start();
    nodes.start();
    backups.start();
    stopSharedPoll = scheduler.every(SHARED_POLL_MS, () => {
      try {
        state.pollShared();
      } catch (err) {
        logger.warn('state: shared database poll failed', { error: String(err) });
      }
    });
  }

  let closed = false;
  return {
    sessions: {
      ...sessions,
      start: async (input) => worktrees.decorate(await start(input)),
      get: (key, agentId) => {
        const info = sessions.get(key, agentId);
        return info && worktrees.decorate(info);
      },
      list: () => sessions.list().map(worktrees.decorate),
      archive: (key, archived) => worktrees.decorate(sessions.archive(key, archived)),
    },
    worktrees: {
      get: worktrees.get,
      diff: worktrees.diff,
      changes: worktrees.changes,
      filePatch: worktrees.filePatch,
      merge: worktrees.merge,
      discard: worktrees.discard,
      overlaps: worktrees.overlaps,
      rebase: worktrees.rebase,
      forget: worktrees.forget,
      probe: worktrees.probe,
      impact: worktrees.impact,
      stats: worktrees.stats,
      review: async (sessionKey, review, opts = {}) => {
        if (!worktrees.get(normalizeSessionKey(sessionKey)))
          throw new GatewayError('not_found', `Session ${sessionKey} has no worktree`);
        await human.send(sessionKey, reviewMessage(review), { channel: 'review', ...opts });
      },
      recovered,
    },
    state,
    notices,
    tools: createTools(registry),
    human,
    events,
    waker,
    agents,
    transcripts: {
      page: (sessionKey, opts = {}) => transcripts.page(normalizeSessionKey(sessionKey), opts),
      all: (sessionKey) => transcripts.all(normalizeSessionKey(sessionKey)),
      changedFiles: (sessionKey) => transcripts.changedFiles(normalizeSessionKey(sessionKey)),
      search: (text, limit) => transcripts.search(text, limit),
    },
    runtime: {
      ...control,
      startDemo: () => startDemo({ agents, sessions, goals, human, engine, store }),
      resetDemo: () => resetDemo({ agents, sessions, goals, human, engine, store }),
    },
    runs: { list: (sessionKey) => runs.history(normalizeSessionKey(sessionKey)) },
    goals,
    mcp: {
      issue: mcp.issue,
      issueForNewSession: mcp.issueForNewSession,
      revoke: mcp.revoke,
      list: mcp.list,
      endpoint: mcp.endpoint,
      status: mcp.status,
    },
    catalog,
    nodeAgents: { checkFolder: (nodeId, folder) => agentLinks.checkFolder(nodeId, folder) },
    catalogRoots,
    status,
    live: supervision.live,
    noticeHistory: supervision.history,
    acp: {
      profiles: acpProfiles,
      permissions,
      registry: acpRegistry,
      auth: createAcpAuth({ sessions: acp, profiles: acpProfiles }),
      login,
    },
    consent,
    secrets: { info: secrets.info },
    person,
    db,
    backups,
    ownership,
    close() {
      if (closed) return;
      closed = true;
      backups.stop();
      waker.enableTimers(false);
      stopSharedPoll?.();
      heartbeats.stop();
      stopWakes();
      stopWorktreeWatch();
      stopLoginWatch();
      login.closeAll();
      worktrees.close();
      consent.close();
      permissions.closeAll();
      closing = true;
      void runners.close();
      // After the runners told the nodes to stop their agents: what waits on a link ends now.
      agentLinks.close();
      mcp.close();
      catalog.stop();
      nodes.close();
      supervision.close();
      db.close();
      ownership.close(); // last: until now this gateway may still write for its sessions
    },
  };
}
