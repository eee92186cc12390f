// Session goals. Every change records `goal_changed` with the spec's summaries; the session's
// parent is a producer watcher, so it hears about its child's goal changes.
import type { ActorType } from '../../../shared/domain';
import type { Db } from '../db/open';
import { notFound } from '../errors';
import type { SessionStore } from '../sessions/store';
import type { StateCore } from '../state/session-state';
import type { Goal, GoalStatus } from '../types';

export const GOAL_STATUSES: readonly GoalStatus[] = ['active', 'paused', 'blocked', 'done'];
export const OBJECTIVE_MAX_CHARS = 2000;

export interface GoalActor {
  type: Exclude<ActorType, 'system'> | 'system';
  id?: string;
}

export type Goals = ReturnType<typeof createGoals>;

export function createGoals(deps: { db: Db; now: () => number; state: StateCore; store: SessionStore }) {
  const { db, now, state, store } = deps;
  const s = {
    get: db.prepare<[string], { objective: string; status: GoalStatus; updated_at: number }>(
      `SELECT objective, status, updated_at FROM session_goals WHERE session_key = ?`,
    ),
    upsert: db.prepare(
      `INSERT INTO session_goals (session_key, objective, status, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (session_key) DO UPDATE SET objective = excluded.objective, status = excluded.status, updated_at = excluded.updated_at`,
    ),
    remove: db.prepare(`DELETE FROM session_goals WHERE session_key = ?`),
  };

  const record = (sessionKey: string, summary: string, actor: GoalActor) => {
    const session = store.get(sessionKey);
    state.record({
      sessionKey,
      kind: 'goal_changed',
      actorType: actor.type,
      ...(actor.id ? { actorId: actor.id } : {}),
      summary,
      ...(session?.parentKey ? { watchers: [session.parentKey] } : {}),
    });
  };

  const goals = {
    get(sessionKey: string): Goal | undefined {
      const r = s.get.get(sessionKey);
      return r ? { objective: r.objective, status: r.status, updatedAt: r.updated_at } : undefined;
    },
    set(sessionKey: string, input: { objective?: string; status?: GoalStatus }, actor: GoalActor): Goal {
      if (!store.get(sessionKey)) throw notFound(`Unknown sessionKey: ${sessionKey}`);
      if (input.objective !== undefined) {
        if (typeof input.objective !== 'string' || input.objective.trim().length === 0) {
          throw new Error('objective must be a non-empty string');
        }
        if (input.objective.length > OBJECTIVE_MAX_CHARS) {
          throw new Error(`objective must be at most ${OBJECTIVE_MAX_CHARS} characters`);
        }
      }
      if (input.status !== undefined && !GOAL_STATUSES.includes(input.status)) {
        throw new Error(`status must be one of ${GOAL_STATUSES.join(', ')}`);
      }
      const current = goals.get(sessionKey);
      if (!current) {
        if (input.objective === undefined) throw new Error('objective is required to create a goal');
        const goal: Goal = {
          objective: input.objective.trim(),
          status: input.status ?? 'active',
          updatedAt: now(),
        };
        s.upsert.run(sessionKey, goal.objective, goal.status, goal.updatedAt);
        record(sessionKey, 'goal created', actor);
        return goal;
      }
      const objective = input.objective?.trim() ?? current.objective;
      const status = input.status ?? current.status;
      if (objective === current.objective && status === current.status) return current;
      const goal: Goal = { objective, status, updatedAt: now() };
      s.upsert.run(sessionKey, objective, status, goal.updatedAt);
      // One event per change; an objective edit is the larger news when both changed.
      record(
        sessionKey,
        objective !== current.objective ? 'goal objective changed' : `goal status changed to ${status}`,
        actor,
      );
      return goal;
    },
    clear(sessionKey: string, actor: GoalActor): boolean {
      if (s.remove.run(sessionKey).changes === 0) return false;
      record(sessionKey, 'goal cleared', actor);
      return true;
    },
    remove: (sessionKey: string) => void s.remove.run(sessionKey),
  };
  return goals;
}
