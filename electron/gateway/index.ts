// createGateway(): the composition root of the gateway. Plain Node; never imports Electron.
import { isMainKey, parseSessionKey } from '../../shared/session-keys';
import { createBackupService, type BackupService } from './db/backups';
import { openDatabase, type Db } from './db/open';
import { createTransactions } from './db/transactions';
import { realScheduler } from './scheduler';
import { consoleLogger, EventHub } from './events';
import { createSessionStore } from './sessions/store';
import { createTranscriptStore } from './sessions/transcripts';
import { NoticeQueues } from './state/notice-queue';
import { createStateCore, type StateCore } from './state/session-state';
import { HeartbeatWaker } from './state/waker';
import { resolveKey } from './state/record-input';
import { ToolRegistry } from './tools/registry';
import { sessionStatusTool, sessionsListTool } from './tools/session-tools';
import type { GatewayOptions, NoticeQueue, Sessions, Tools } from './types';
import { decodeNoticeContextKey } from '../../shared/session-keys';
import { createRuntime, type Runtime } from './runtime';
import { createCatalog, resolveCatalogRoots, type CatalogService } from './catalog';

export type * from './types';
export { GatewayError } from './errors';
export { realScheduler } from './scheduler';

/** How often a gateway looks for notices committed by other gateways on the same database. */
export const SHARED_POLL_MS = 1000;

export interface Gateway {
  sessions: Sessions;
  state: StateCore;
  notices: NoticeQueue & { all(): ReturnType<NoticeQueues['all']> };
  tools: Tools;
  human: Runtime['human'];
  events: EventHub;
  waker: HeartbeatWaker;
  agents: Runtime['agents'];
  transcripts: Runtime['transcripts'];
  runtime: Runtime['control'];
  catalog: CatalogService;
  acp: Runtime['acp'];
  goals: Runtime['goals'];
  /** The database handle, for the catalog, browser mode and tests in this process. */
  db: Db;
  /** Rolling daily backups of the database (started with autoStart). */
  backups: BackupService;
  close(): void;
}

export function createGateway(options: GatewayOptions): Gateway {
  if (!options || typeof options.dataDir !== 'string' || options.dataDir.length === 0) {
    throw new Error('createGateway: dataDir is required');
  }
  const now = options.now ?? Date.now;
  const scheduler = options.scheduler ?? realScheduler;
  const logger = options.logger ?? consoleLogger;
  const autoStart = options.autoStart ?? true;
  const db = openDatabase(options.dataDir);
  const backups = createBackupService({ db, dataDir: options.dataDir, now, scheduler, logger });
  const tx = createTransactions(db, (err) =>
    logger.warn('gateway: after-commit step failed', { error: String(err) }),
  );
  const events = new EventHub(logger, tx);
  const store = createSessionStore(db, now);
  const transcripts = createTranscriptStore(db, now);
  // The runtime is built after the state core it needs; callbacks below reach it late.
  const late: { runtime?: Runtime } = {};

  const queues = new NoticeQueues((sessionKey, entry) =>
    events.emit({ type: 'notice:queued', sessionKey, entry }),
  );
  const waker = new HeartbeatWaker(
    now,
    (key) => isMainKey(key) || (late.runtime?.isMainSession(key) ?? false),
    scheduler,
  );
  const sessionExists = (key: string) => store.get(key) !== undefined;
  const state = createStateCore({
    db,
    now,
    logger,
    queues,
    waker,
    sessionExists,
    emit: events.emit,
    afterCommit: tx.afterCommit,
  });

  const notices: Gateway['notices'] = {
    peek: (sessionKey) => queues.peek(parseSessionKey(sessionKey).key),
    enqueue: (sessionKey, entry) => {
      if (!entry || typeof entry.text !== 'string') throw new Error('notice entry needs a text');
      return queues.enqueue(parseSessionKey(sessionKey).key, entry);
    },
    drain: (sessionKey) => {
      const key = parseSessionKey(sessionKey).key;
      const entries = queues.take(key);
      const targets = entries
        .map((e) => decodeNoticeContextKey(e.contextKey))
        .filter((t): t is string => !!t);
      if (entries.length) events.emit({ type: 'notice:drained', sessionKey: key, entries });
      // Acknowledge on drain: only session-state entries acknowledge, each its own target.
      if (targets.length) state.acknowledge(key, targets);
      return entries;
    },
    all: () => queues.all(),
  };

  const sessions: Sessions = {
    create(input) {
      const info = store.create(input);
      events.emit({ type: 'session:changed', sessionKey: info.key });
      return info;
    },
    get: (key, agentId) => store.get(key, agentId),
    list: () => store.list(),
    reset(key) {
      const k = parseSessionKey(key).key;
      transcripts.clear(k);
      state.removeCursorsHeldBy(k);
      queues.clear(k);
      late.runtime?.onReset(k);
      events.emit({ type: 'session:changed', sessionKey: k });
    },
    delete(key, agentId) {
      const k = resolveKey(key, agentId ?? store.get(key)?.agentId ?? 'main');
      db.transaction(() => {
        store.remove(k.key, k.agentId);
        store.detachChildren(k.key);
        transcripts.clear(k.key);
        state.removeCursorsHeldBy(k.key);
        state.removeCursorsOn(k.key);
      })();
      queues.clear(k.key);
      waker.forget(k.key);
      late.runtime?.onDelete(k.key);
      events.emit({ type: 'session:deleted', sessionKey: k.key });
    },
  };

  const registry = new ToolRegistry();
  const describe = (key: string) => late.runtime?.describe(key) ?? {};
  registry.register(sessionStatusTool({ sessions: store, state, describe }));
  registry.register(sessionsListTool({ sessions: store, state, describe }));

  const tools: Tools = {
    call(caller, tool, args) {
      if (typeof caller !== 'string' || caller.length === 0) {
        return Promise.resolve({ ok: false, error: 'callerSessionKey is required' });
      }
      const parsed = parseSessionKey(caller);
      return registry.call({ caller: parsed.key, callerAgentId: parsed.agentId ?? 'main' }, tool, args);
    },
  };

  const catalog = createCatalog({
    db,
    sessions,
    state,
    now,
    logger,
    roots: resolveCatalogRoots(options.catalogRoots),
    importTranscript(sessionKey, messages) {
      for (const m of messages)
        events.emit({ type: 'transcript:appended', message: transcripts.append(sessionKey, m) });
    },
  });

  // Messages to adopted sessions go upstream (the catalog's CLI continuation), messages to ACP
  // children become prompts; native sessions take a turn.
  const deliverExternal = async (
    key: string,
    text: string,
    from: { type: 'agent' | 'human'; id: string },
  ) => {
    const kind = parseSessionKey(key).kind;
    if (kind === 'adopted') {
      await catalog.continue(key, text);
      return { channel: 'desktop' };
    }
    if (kind === 'acp' && late.runtime?.acp.deliver(key, text, from)) return { channel: 'acp' };
    return false as const;
  };

  const runtime = createRuntime({
    db,
    now,
    scheduler,
    logger,
    events,
    store,
    transcripts,
    state,
    notices,
    waker,
    registry,
    sessions,
    autoStart,
    deliverExternal,
    dataDir: options.dataDir,
  });
  late.runtime = runtime;

  let stopSharedPoll: (() => void) | undefined;
  // Start-up: re-queue pending notices from durable cursors, then prune (also without timers).
  state.sweep();
  if (autoStart) {
    waker.enableTimers(true);
    runtime.start();
    catalog.start();
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
    sessions,
    state,
    notices,
    tools,
    human: runtime.human,
    events,
    waker,
    agents: runtime.agents,
    transcripts: runtime.transcripts,
    runtime: runtime.control,
    goals: runtime.goals,
    catalog,
    acp: runtime.acp,
    db,
    backups,
    close() {
      if (closed) return;
      closed = true;
      backups.stop();
      waker.enableTimers(false);
      stopSharedPoll?.();
      runtime.stop();
      catalog.stop();
      db.close();
    },
  };
}
