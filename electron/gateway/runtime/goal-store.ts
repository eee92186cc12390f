// The owner of `session_goals`: its statements, nothing else (the goals service records the
// events and checks input).
import type { Db } from '../db/open';
import type { Goal, GoalStatus } from '../types';

export interface GoalStore {
  get(sessionKey: string): Goal | undefined;
  all(): Map<string, Goal>;
  put(sessionKey: string, goal: Goal): void;
  /** False when the session had no goal. */
  remove(sessionKey: string): boolean;
}

type Row = { objective: string; status: GoalStatus; updated_at: number };
const toGoal = (r: Row): Goal => ({ objective: r.objective, status: r.status, updatedAt: r.updated_at });

export function createGoalStore(db: Db): GoalStore {
  const s = {
    get: db.prepare<[string], Row>(
      `SELECT objective, status, updated_at FROM session_goals WHERE session_key = ?`,
    ),
    upsert: db.prepare(
      `INSERT INTO session_goals (session_key, objective, status, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (session_key) DO UPDATE SET objective = excluded.objective, status = excluded.status, updated_at = excluded.updated_at`,
    ),
    remove: db.prepare(`DELETE FROM session_goals WHERE session_key = ?`),
    all: db.prepare<[], Row & { session_key: string }>(
      `SELECT session_key, objective, status, updated_at FROM session_goals`,
    ),
  };
  return {
    get(sessionKey) {
      const r = s.get.get(sessionKey);
      return r ? toGoal(r) : undefined;
    },
    all: () => new Map(s.all.all().map((r) => [r.session_key, toGoal(r)])),
    put(sessionKey, goal) {
      s.upsert.run(sessionKey, goal.objective, goal.status, goal.updatedAt);
    },
    remove: (sessionKey) => s.remove.run(sessionKey).changes > 0,
  };
}
