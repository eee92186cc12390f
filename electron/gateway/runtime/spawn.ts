// The one spawn path. A native sub-agent and an ACP child are made the same way, in one
// transaction: the session (through sessions.create), `child_spawned` seeding the parent's cursor,
// the first message of its transcript (a person's first message is their turn, recorded under the
// usual rules) and its queued run. A crash leaves all of it or none; the push events follow the
// commit. Only then does the first turn start (a model turn, or the ACP agent's first prompt).
// `sessions_spawn` calls `spawn`; `sessions.start` calls `start`, the same path with the person as
// the one who spawns, which starts an ACP agent before anything is written, so an agent that
// cannot start leaves no session behind.
import { randomUUID } from 'node:crypto';
import { childKeyFor } from '../../../shared/session-keys';
import type { Transactions } from '../db/transactions';
import { invalidArgument } from '../errors';
import type { TranscriptStore } from '../sessions/transcripts';
import type { StateCore } from '../state/session-state';
import type { GatewayEvent, SessionInfo, Sessions } from '../types';
import type { SpawnInfo } from './child-outcome';
import { recordHumanTurn } from './human';
import type { ChildRunner, Runners } from './runner';
import type { RunStore } from './runs';

export interface SpawnRequest {
  /** The runner that runs the child: 'native' (model turns) or 'acp' (an ACP agent). */
  runtime: string;
  /** The agent the child belongs to (its key is `agent:<agentId>:…`). */
  agentId: string;
  /** The first turn: an agent's task or a person's first message. */
  message: string;
  /** Who spawns: the actor of `child_spawned` and the author of the first message. */
  from: { type: 'agent' | 'human'; id: string };
  /** The parent that watches the child (its cursor is seeded at `child_spawned`). */
  parentKey?: string;
  label?: string;
  /** ACP only: the profile id or name (default: the first profile). */
  profile?: string;
  /** The working folder (checked by the caller); ACP default: the profile's, else one of its own. */
  cwd?: string;
  timeoutMs?: number;
  /** The key's own id (default: a fresh one); isolation.ts picks it first to name the worktree. */
  id?: string;
  /** A paired node's id: the agent runs there (ACP only; `cwd` is a folder on that machine). */
  node?: string;
}

export interface Spawned {
  childSessionKey: string;
  runId: string;
  runtime: string;
  /** ACP only: the profile that runs the child. */
  profile?: string;
}

export interface SpawnDeps {
  tx: Transactions;
  now: () => number;
  emit: (e: GatewayEvent) => void;
  sessions: Pick<Sessions, 'create'>;
  state: StateCore;
  transcripts: TranscriptStore;
  runs: RunStore;
  runners: Pick<Runners, 'child' | 'started'>;
}

export type Spawner = ReturnType<typeof createSpawner>;

/** A child key's own id: 8 hex digits. */
export const newChildId = () => randomUUID().slice(0, 8);

interface Planned {
  req: SpawnRequest;
  key: string;
  runId: string;
  runner: ChildRunner;
  config?: unknown;
  cwd?: string;
  labelHead?: string;
  profileId?: string;
}

/** Which runner makes the child, its key and what the runner planned; throws before anything is written. */
function plan(deps: SpawnDeps, req: SpawnRequest): Planned {
  const runner = deps.runners.child(req.runtime);
  if (!runner) throw invalidArgument(`Unknown runtime: ${req.runtime}`);
  if (req.node !== undefined && req.runtime !== 'acp')
    throw invalidArgument('Only an ACP agent runs on a paired node (runtime "acp")');
  const key = childKeyFor(req.agentId, req.runtime, req.id ?? newChildId());
  const p = runner.plan(key, {
    ...(req.profile !== undefined ? { profile: req.profile } : {}),
    ...(req.cwd !== undefined ? { cwd: req.cwd } : {}),
    ...(req.node !== undefined ? { node: req.node } : {}),
    by: req.from.type,
  });
  const cwd = req.cwd ?? p.cwd;
  return { req, key, runId: randomUUID(), runner, ...p, ...(cwd ? { cwd } : {}) };
}

/** Everything the child is, in one transaction. */
function commit(deps: SpawnDeps, p: Planned): SessionInfo {
  const { tx, emit } = deps;
  const { req, key } = p;
  const label =
    req.label ?? (p.labelHead ? `${p.labelHead}: ${req.message.slice(0, 60)}` : req.message.slice(0, 80));
  return tx.run(() => {
    const session = deps.sessions.create({
      key,
      label,
      ...(req.parentKey ? { parentKey: req.parentKey } : {}),
      ...(p.cwd ? { cwd: p.cwd } : {}),
    });
    // Before the first turn, so the parent's cursor is seeded at this version.
    const seeded = deps.state.record({
      sessionKey: key,
      kind: 'child_spawned',
      actorType: req.from.type,
      actorId: req.from.id,
      summary: 'child session spawned',
      ...(req.parentKey ? { watchers: [req.parentKey] } : {}),
    });
    if (!seeded) throw new Error(`could not record child_spawned for ${key}`);
    const first = deps.transcripts.append(key, {
      role: 'user',
      actorType: req.from.type,
      actorId: req.from.id,
      text: req.message,
    });
    // A person's first message is their turn: it reaches the parent as one notice.
    if (req.from.type === 'human') recordHumanTurn(deps.state, session, 'desktop', req.from.id);
    emit({ type: 'transcript:appended', message: first });
    emit({ type: 'run:changed', run: deps.runs.start(p.runId, key, 'queued', deps.now()) });
    return session;
  });
}

/** What the runner reports the child's outcome with. */
function spawnInfo(p: Planned, onStarted?: () => void): SpawnInfo {
  return {
    runId: p.runId,
    ...(p.req.parentKey ? { parentKey: p.req.parentKey } : {}),
    ...(p.req.timeoutMs ? { timeoutMs: p.req.timeoutMs } : {}),
    ...(onStarted ? { onStarted } : {}),
  };
}

/** The answer to the one who spawned. */
function spawned(p: Planned): Spawned {
  return {
    childSessionKey: p.key,
    runId: p.runId,
    runtime: p.req.runtime,
    ...(p.profileId ? { profile: p.profileId } : {}),
  };
}

/** The child as its runner starts it. */
function child(p: Planned) {
  return {
    key: p.key,
    ...(p.cwd ? { cwd: p.cwd } : {}),
    ...(p.req.node !== undefined ? { node: p.req.node } : {}),
    ...(p.config !== undefined ? { config: p.config } : {}),
  };
}

export function createSpawner(deps: SpawnDeps) {
  return {
    /**
     * An agent's spawn. Throws (writing nothing) when the child cannot be made: an unknown ACP
     * profile, or one an agent may not start (`profile "<id>" is not allowed for agents`); an ACP
     * agent that then fails to start ends the child's first run as failed.
     */
    spawn(req: SpawnRequest): Spawned {
      const p = plan(deps, req);
      commit(deps, p);
      deps.runners.started(p.key, p.runner);
      p.runner.begin({ ...child(p), task: req.message, spawn: spawnInfo(p) });
      return spawned(p);
    },

    /**
     * A person's start. An agent whose runner can fail to start is started first (an ACP agent:
     * process, initialize, session/new): when it cannot start, this rejects with the cause and
     * nothing was written. Resolves with the new session once its first turn started; a first
     * turn that fails later is a failed run.
     */
    async start(req: SpawnRequest): Promise<{ session: SessionInfo; spawned: Spawned }> {
      const p = plan(deps, req);
      const launched = p.runner.launch ? await p.runner.launch(child(p)) : undefined;
      let session: SessionInfo;
      try {
        session = commit(deps, p);
      } catch (err) {
        launched?.abandon();
        throw err;
      }
      deps.runners.started(p.key, p.runner);
      let onStarted: () => void = () => undefined;
      const started = new Promise<void>((resolve) => (onStarted = resolve));
      if (launched) launched.begin(req.message, spawnInfo(p, onStarted));
      else p.runner.begin({ ...child(p), task: req.message, spawn: spawnInfo(p, onStarted) });
      await started;
      return { session, spawned: spawned(p) };
    },
  };
}
