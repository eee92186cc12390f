// The agent runtime: agents, turns, tools, spawned children, goals, human actions, heartbeat.
import { isSubagentKey, mainKeyFor, parseSessionKey } from '../../../shared/session-keys';
import type { Db } from '../db/open';
import type { EventHub } from '../events';
import type { SessionStore } from '../sessions/store';
import type { TranscriptStore } from '../sessions/transcripts';
import type { StateCore } from '../state/session-state';
import type { Scheduler } from '../scheduler';
import type { HeartbeatWaker } from '../state/waker';
import type { ToolRegistry } from '../tools/registry';
import type { AgentConfig, Logger, NoticeQueue, RunInfo, RunStatus, Sessions } from '../types';
import path from 'node:path';
import { notFound } from '../errors';
import { createAcpProfileStore } from './acp-profiles';
import { createAcpSessions } from './acp-sessions';
import { agentTools, MESSAGE_MAX_CHARS } from './agent-tools';
import { createAgentStore } from './agents';
import { compactIfNeeded } from './compaction';
import { resetDemo, startDemo } from './demo';
import { createGoals, type GoalActor } from './goals';
import { createProvider } from './providers';
import { createScriptedProvider } from './providers/scripted';
import type { ModelProvider } from './providers/types';
import { oneLine } from '../state/record-input';
import { createRunStore } from './runs';
import { TurnEngine, type SpawnInfo } from './turns';

export interface RuntimeDeps {
  db: Db;
  now: () => number;
  scheduler: Scheduler;
  logger: Logger;
  events: EventHub;
  store: SessionStore;
  transcripts: TranscriptStore;
  state: StateCore;
  notices: NoticeQueue;
  waker: HeartbeatWaker;
  registry: ToolRegistry;
  sessions: Sessions;
  autoStart: boolean;
  dataDir: string;
  /**
   * Sessions that are not native (adopted upstream sessions, ACP children) receive messages
   * elsewhere. Returns the channel to record, or false when the session is native.
   */
  deliverExternal?: (
    key: string,
    text: string,
    from: { type: 'agent' | 'human'; id: string },
  ) => Promise<{ channel: string } | false>;
}

export type Runtime = ReturnType<typeof createRuntime>;

/** Without timers (autoStart false), a wake's heartbeat turn starts this long after the wake. */
export const WAKE_TURN_GRACE_MS = 1000;

const OUTCOME_SUMMARY = {
  error: 'child run failed',
  timeout: 'child run timed out',
  cancelled: 'child run cancelled',
} as const;

export function createRuntime(deps: RuntimeDeps) {
  const { db, now, scheduler, logger, events, store, transcripts, state, waker } = deps;
  const emit = events.emit;
  const agents = createAgentStore(db, now);
  const runs = createRunStore(db);
  const goals = createGoals({ db, now, state, store });
  const providers = new Map<string, { settings: string; provider: ModelProvider }>();
  const timers: (() => void)[] = [];

  const providerFor = (agent: AgentConfig): ModelProvider => {
    const key = `${agent.provider}:${JSON.stringify(agent.providerSettings)}`;
    const cached = providers.get(agent.id);
    if (cached?.settings === key) return cached.provider;
    const provider = createProvider(agent.provider, agent.providerSettings, createScriptedProvider);
    providers.set(agent.id, { settings: key, provider });
    return provider;
  };

  const onSpawnRunEnd = (childKey: string, run: RunInfo, spawn: SpawnInfo, text: string | undefined) => {
    const ok = run.status === 'idle';
    // Log only: the child's completion announcement is what delivers the result to the parent.
    state.record({
      sessionKey: childKey,
      kind: ok ? 'run_completed' : 'run_failed',
      actorType: 'system',
      runId: run.runId,
      summary: ok ? 'child run completed' : OUTCOME_SUMMARY[run.outcome ?? 'error'],
      ...(ok ? {} : { payload: { outcome: run.outcome ?? 'error' } }),
      watchers: [spawn.parentKey],
    });
    const label = store.get(childKey)?.label;
    const verb = ok
      ? 'completed'
      : run.outcome === 'timeout'
        ? 'timed out'
        : run.outcome === 'cancelled'
          ? 'cancelled'
          : 'failed';
    const detail = ok ? (text ?? '') : (run.error ?? run.outcome ?? '');
    if (store.get(spawn.parentKey)) {
      void engine.enqueue(spawn.parentKey, {
        kind: 'system',
        text: `[child run ${verb}] ${childKey}${label ? ` (${label})` : ''}: ${detail.replace(/\s+/g, ' ').slice(0, 500)}`,
      });
    }
  };

  const engine: TurnEngine = new TurnEngine({
    now,
    scheduler,
    logger,
    emit,
    store,
    transcripts,
    runs,
    agents,
    notices: deps.notices,
    registry: deps.registry,
    providerFor,
    onSpawnRunEnd,
    afterTurn: (key, agent) => {
      try {
        if (compactIfNeeded({ transcripts, state }, key, agent))
          emit({ type: 'session:changed', sessionKey: key });
      } catch (err) {
        logger.warn('runtime: compaction failed', { sessionKey: key, error: String(err) });
      }
    },
  });

  const external = deps.deliverExternal;
  const deliverExternal = external
    ? async (k: string, text: string, from: { type: 'agent' | 'human'; id: string }) =>
        (await external(k, text, from)) !== false
    : undefined;
  const acpProfiles = createAcpProfileStore(db, now);
  const acp = createAcpSessions({
    now,
    logger,
    emit,
    store,
    state,
    transcripts,
    runs,
    profiles: acpProfiles,
    workRoot: path.join(deps.dataDir, 'acp-work'),
    onRunEnd: onSpawnRunEnd,
  });
  const toolDeps = { now, store, transcripts, state, agents, runs, goals, engine, emit, spawnAcp: acp.spawn };
  for (const tool of agentTools({ ...toolDeps, ...(deliverExternal ? { deliverExternal } : {}) })) {
    deps.registry.register(tool);
  }

  const human = {
    async send(sessionKey: string, text: string, opts: { channel?: string } = {}): Promise<void> {
      if (typeof sessionKey !== 'string' || sessionKey.length === 0)
        throw new Error('sessionKey is required');
      if (typeof text !== 'string' || text.trim().length === 0)
        throw new Error('text must be a non-empty string');
      if (text.length > MESSAGE_MAX_CHARS)
        throw new Error(`text must be at most ${MESSAGE_MAX_CHARS} characters`);
      const session = store.get(sessionKey);
      if (!session) throw notFound(`Unknown sessionKey: ${sessionKey}`);
      if (opts.channel !== undefined && typeof opts.channel !== 'string')
        throw new Error('channel must be a string');
      const external = await deps.deliverExternal?.(session.key, text, { type: 'human', id: 'local-user' });
      // Absent → the composer's own channel (desktop, or the external session's); given but
      // empty → `unknown`, as the spec's summary rule says.
      const channel =
        opts.channel === undefined
          ? external
            ? external.channel
            : 'desktop'
          : oneLine(opts.channel, 64) || 'unknown';
      if (!external) {
        const m = transcripts.append(session.key, {
          role: 'user',
          actorType: 'human',
          actorId: 'local-user',
          text,
        });
        emit({ type: 'transcript:appended', message: m });
      }
      // Gate: recorded only when the session has a parent or at least one watcher (one lookup).
      if (state.hasParentOrWatcher(session.key, session.agentId)) {
        state.record({
          sessionKey: session.key,
          agentId: session.agentId,
          kind: 'human_direct_message',
          actorType: 'human',
          actorId: 'local-user',
          summary: `human message via ${channel}`,
          payload: { channel },
          ...(session.parentKey ? { watchers: [session.parentKey] } : {}),
        });
      }
      if (external) return;
      void engine.enqueue(session.key, { kind: 'user' });
    },
  };

  const sessionStatus = (key: string): RunStatus => {
    const live = engine.status(key);
    if (live.busy) return live.run?.status ?? 'running';
    if (live.queued > 0) return 'queued';
    return runs.latest(key)?.status ?? 'idle';
  };

  const control = {
    status: (sessionKey: string): RunInfo | undefined =>
      engine.status(parseSessionKey(sessionKey).key).run ?? runs.latest(parseSessionKey(sessionKey).key),
    runs: (sessionKey: string, limit?: number) => runs.list(parseSessionKey(sessionKey).key, limit),
    sessionStatus,
    cancel: (sessionKey: string): boolean =>
      engine.cancel(parseSessionKey(sessionKey).key, 'cancelled') ||
      acp.cancel(parseSessionKey(sessionKey).key),
    idle: () => engine.idle(),
    /** One heartbeat turn now (what a wake or the timer does); resolves when it is done. */
    heartbeat: (sessionKey: string) => engine.enqueue(parseSessionKey(sessionKey).key, { kind: 'heartbeat' }),
    tokens: (sessionKey: string) => runs.totals(parseSessionKey(sessionKey).key),
    startDemo: () => startDemo({ agents, sessions: deps.sessions, goals, human, engine, store }),
    resetDemo: () => resetDemo({ agents, sessions: deps.sessions, goals, human, engine, store }),
  };

  const goalsApi = {
    get: (sessionKey: string) => goals.get(parseSessionKey(sessionKey).key),
    set(sessionKey: string, input: Parameters<typeof goals.set>[1], actor: GoalActor) {
      const goal = goals.set(parseSessionKey(sessionKey).key, input, actor);
      emit({ type: 'session:changed', sessionKey: parseSessionKey(sessionKey).key });
      return goal;
    },
    clear(sessionKey: string, actor: GoalActor) {
      const cleared = goals.clear(parseSessionKey(sessionKey).key, actor);
      emit({ type: 'session:changed', sessionKey: parseSessionKey(sessionKey).key });
      return cleared;
    },
  };

  // Agent `main` and its main session exist by default; runs cut short by a crash are failed.
  const main = agents.ensureDefault();
  if (!store.get(main.mainKey)) deps.sessions.create({ key: main.mainKey, label: 'Main' });
  runs.failInterrupted(now());

  // A wake runs the main session's heartbeat turn at once. Without timers (autoStart false, as
  // tests and scripts drive the gateway) it runs after a short grace instead, so that a caller
  // can still look at the queued notice right after the action that queued it.
  const wakeTimers = new Set<() => void>();
  const unsubscribeWake = waker.onWake((key) => {
    if (!store.get(key) || isSubagentKey(key)) return;
    if (deps.autoStart) return void engine.enqueue(key, { kind: 'heartbeat' });
    const cancel = scheduler.after(WAKE_TURN_GRACE_MS, () => {
      wakeTimers.delete(cancel);
      void engine.enqueue(key, { kind: 'heartbeat' });
    });
    wakeTimers.add(cancel);
  });

  return {
    human,
    agents: {
      list: () => agents.list(),
      get: (id: string) => agents.get(id),
      save(cfg: Partial<AgentConfig> & { id: string }) {
        const saved = agents.save(cfg);
        if (!store.get(saved.mainKey)) deps.sessions.create({ key: saved.mainKey, label: saved.name });
        if (timers.length) restartHeartbeats();
        return saved;
      },
    },
    transcripts: {
      page: (sessionKey: string, opts: { beforeId?: number; limit?: number } = {}) =>
        transcripts.page(parseSessionKey(sessionKey).key, opts),
      all: (sessionKey: string) => transcripts.all(parseSessionKey(sessionKey).key),
    },
    goals: goalsApi,
    control,
    acp: {
      profiles: {
        list: acpProfiles.list,
        get: acpProfiles.get,
        save: acpProfiles.save,
        remove: acpProfiles.remove,
      },
      permissions: acp.permissions,
      deliver: acp.deliver,
    },
    engine,
    isMainSession: (key: string) => agents.isMainKey(key),
    describe: (key: string) => {
      const goal = goals.get(key);
      return {
        runStatus: sessionStatus(key),
        ...(goal ? { goal: { objective: goal.objective, status: goal.status } } : {}),
      };
    },
    onReset: (key: string) => engine.forget(key),
    onDelete: (key: string) => {
      engine.forget(key);
      acp.forget(key);
      goals.remove(key);
      runs.removeSession(key);
    },
    start() {
      restartHeartbeats();
    },
    stop() {
      for (const cancel of timers.splice(0)) cancel();
      for (const cancel of wakeTimers) cancel();
      wakeTimers.clear();
      unsubscribeWake();
      engine.stop();
      void acp.closeAll();
    },
  };

  function restartHeartbeats() {
    for (const cancel of timers.splice(0)) cancel();
    for (const agent of agents.list()) {
      if (agent.heartbeatSeconds <= 0) continue;
      const key = agent.mainKey || mainKeyFor(agent.id);
      timers.push(scheduler.every(agent.heartbeatSeconds * 1000, () => waker.request(key, 'heartbeat')));
    }
  }
}
