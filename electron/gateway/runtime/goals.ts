// Session goals (stored by goal-store.ts). Every change records `goal_changed` with the spec's
// summaries in the same transaction; the session's parent is a producer watcher, so it hears
// about its child's goal changes. `session:changed` goes out after the commit.
import type { ActorType } from '../../../shared/domain';
import { normalizeSessionKey } from '../../../shared/session-keys';
import type { Transactions } from '../db/transactions';
import { notFound } from '../errors';
import type { SessionStore } from '../sessions/store';
import type { StateCore } from '../state/session-state';
import type { GatewayEvent, Goal, GoalStatus } from '../types';
import type { GoalStore } from './goal-store';

export const GOAL_STATUSES: readonly GoalStatus[] = ['active', 'paused', 'blocked', 'done'];
export const OBJECTIVE_MAX_CHARS = 2000;

export interface GoalActor {
  type: ActorType;
  id?: string;
}

export interface GoalsDeps {
  goals: GoalStore;
  tx: Transactions;
  now: () => number;
  state: StateCore;
  store: SessionStore;
  emit: (e: GatewayEvent) => void;
}

export type Goals = ReturnType<typeof createGoals>;

export function createGoals(deps: GoalsDeps) {
  const { goals, tx, now, state, store, emit } = deps;

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

  /** Writes the goal and its event in one transaction; the push follows the commit. */
  const write = (key: string, goal: Goal, summary: string, actor: GoalActor) => {
    tx.run(() => {
      goals.put(key, goal);
      record(key, summary, actor);
      emit({ type: 'session:changed', sessionKey: key });
    });
    return goal;
  };

  const get = (sessionKey: string): Goal | undefined => goals.get(normalizeSessionKey(sessionKey));

  return {
    get,
    /** Every session's goal (the fleet snapshot). */
    all: (): Map<string, Goal> => goals.all(),
    set(sessionKey: string, input: { objective?: string; status?: GoalStatus }, actor: GoalActor): Goal {
      const key = normalizeSessionKey(sessionKey);
      if (!store.get(key)) throw notFound(`Unknown sessionKey: ${sessionKey}`);
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
      const current = get(key);
      if (!current) {
        if (input.objective === undefined) throw new Error('objective is required to create a goal');
        const goal = {
          objective: input.objective.trim(),
          status: input.status ?? 'active',
          updatedAt: now(),
        };
        return write(key, goal, 'goal created', actor);
      }
      const objective = input.objective?.trim() ?? current.objective;
      const status = input.status ?? current.status;
      if (objective === current.objective && status === current.status) return current;
      // One event per change; an objective edit is the larger news when both changed.
      const summary =
        objective !== current.objective ? 'goal objective changed' : `goal status changed to ${status}`;
      return write(key, { objective, status, updatedAt: now() }, summary, actor);
    },
    clear(sessionKey: string, actor: GoalActor): boolean {
      const key = normalizeSessionKey(sessionKey);
      return tx.run(() => {
        if (!goals.remove(key)) return false;
        record(key, 'goal cleared', actor);
        emit({ type: 'session:changed', sessionKey: key });
        return true;
      });
    },
  };
}
