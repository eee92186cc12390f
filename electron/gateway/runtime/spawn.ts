// The one spawn path. A native sub-agent and an ACP child are made the same way, in one
// transaction: the session (through sessions.create), `child_spawned` seeding the parent's cursor,
// the first message of its transcript and its queued run. A crash leaves all of it or none; the
// push events follow the commit. Only then does the first turn start (a model turn, or the ACP
// agent's first prompt). `sessions_spawn` uses it today; `sessions.start` is the same call with
// the person as the one who spawns.
import { randomUUID } from 'node:crypto';
import { childKeyFor } from '../../../shared/session-keys';
import type { Transactions } from '../db/transactions';
import type { TranscriptStore } from '../sessions/transcripts';
import type { StateCore } from '../state/session-state';
import type { GatewayEvent, Sessions } from '../types';
import type { AcpMcpHooks, AcpSessions } from './acp/sessions';
import type { SpawnInfo } from './child-outcome';
import type { RunStore } from './runs';
import type { TurnEngine } from './turns';

export interface SpawnRequest {
  runtime: 'native' | 'acp';
  /** The agent the child belongs to (its key is `agent:<agentId>:…`). */
  agentId: string;
  /** The first turn: an agent's task or a person's first message. */
  message: string;
  /** Who spawns: the actor of `child_spawned` and the author of the first message. */
  from: { type: 'agent' | 'human'; id: string };
  /** The parent that watches the child (its cursor is seeded at `child_spawned`). */
  parentKey?: string;
  label?: string;
  /** ACP only: the profile id or name (default: the first profile; an agent's: the first it may start). */
  profile?: string;
  timeoutMs?: number;
}

export interface Spawned {
  childSessionKey: string;
  runId: string;
  runtime: 'native' | 'acp';
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
  engine: TurnEngine;
  acp: AcpSessions;
  /** Sightline's MCP server for the agent of an ACP child. */
  mcp: AcpMcpHooks;
}

export type Spawner = ReturnType<typeof createSpawner>;

export function createSpawner(deps: SpawnDeps) {
  const { tx, emit } = deps;
  return {
    /**
     * Throws (writing nothing) when the child cannot be made: an unknown ACP profile, or one an
     * agent may not start (`profile "<id>" is not allowed for agents`).
     */
    spawn(req: SpawnRequest): Spawned {
      const profile = req.runtime === 'acp' ? deps.acp.profileFor(req.profile, req.from.type) : undefined;
      const childKey = childKeyFor(req.agentId, req.runtime, randomUUID().slice(0, 8));
      const runId = randomUUID();
      const label =
        req.label ?? (profile ? `${profile.name}: ${req.message.slice(0, 60)}` : req.message.slice(0, 80));
      tx.run(() => {
        deps.sessions.create({
          key: childKey,
          label,
          ...(req.parentKey ? { parentKey: req.parentKey } : {}),
        });
        // Before the first turn, so the parent's cursor is seeded at this version.
        const seeded = deps.state.record({
          sessionKey: childKey,
          kind: 'child_spawned',
          actorType: req.from.type,
          actorId: req.from.id,
          summary: 'child session spawned',
          ...(req.parentKey ? { watchers: [req.parentKey] } : {}),
        });
        if (!seeded) throw new Error(`could not record child_spawned for ${childKey}`);
        const first = deps.transcripts.append(childKey, {
          role: 'user',
          actorType: req.from.type,
          actorId: req.from.id,
          text: req.message,
        });
        emit({ type: 'transcript:appended', message: first });
        emit({ type: 'run:changed', run: deps.runs.start(runId, childKey, 'queued', deps.now()) });
      });
      const spawn: SpawnInfo = {
        runId,
        ...(req.parentKey ? { parentKey: req.parentKey } : {}),
        ...(req.timeoutMs ? { timeoutMs: req.timeoutMs } : {}),
      };
      if (profile) {
        deps.acp.start(childKey, profile, req.message, spawn, deps.mcp);
        return { childSessionKey: childKey, runId, runtime: 'acp', profile: profile.id };
      }
      void deps.engine.enqueue(childKey, { kind: 'task', spawn });
      return { childSessionKey: childKey, runId, runtime: 'native' };
    },
  };
}
