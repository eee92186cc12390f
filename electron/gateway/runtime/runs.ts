// Runs: one per turn, with a status the UI shows and token totals.
import type { Db } from '../db/open';
import type { Cost, ContextUse, RunInfo, RunStatus } from '../types';

interface RunDbRow {
  run_id: string;
  session_key: string;
  status: RunStatus;
  outcome: RunInfo['outcome'] | null;
  error: string | null;
  started_at: number;
  ended_at: number | null;
  input_tokens: number;
  output_tokens: number;
  cost_amount: number | null;
  cost_currency: string | null;
  context_used: number | null;
  context_size: number | null;
}

function toRun(r: RunDbRow): RunInfo {
  const run: RunInfo = {
    runId: r.run_id,
    sessionKey: r.session_key,
    status: r.status,
    startedAt: r.started_at,
    inputTokens: r.input_tokens,
    outputTokens: r.output_tokens,
  };
  if (r.ended_at !== null) run.endedAt = r.ended_at;
  if (r.outcome !== null) run.outcome = r.outcome;
  if (r.error !== null) run.error = r.error;
  if (r.cost_amount !== null && r.cost_currency !== null)
    run.cost = { amount: r.cost_amount, currency: r.cost_currency };
  if (r.context_used !== null && r.context_size !== null)
    run.context = { used: r.context_used, size: r.context_size };
  return run;
}

function statements(db: Db) {
  return {
    insert: db.prepare(`INSERT INTO runs (run_id, session_key, status, started_at) VALUES (?, ?, ?, ?)`),
    update: db.prepare(
      `UPDATE runs SET status = ?, outcome = ?, error = ?, ended_at = ?, input_tokens = ?, output_tokens = ?,
         cost_amount = ?, cost_currency = ?, context_used = ?, context_size = ? WHERE run_id = ?`,
    ),
    get: db.prepare<[string], RunDbRow>(`SELECT * FROM runs WHERE run_id = ?`),
    latest: db.prepare<[string], RunDbRow>(
      `SELECT * FROM runs WHERE session_key = ? ORDER BY started_at DESC, rowid DESC LIMIT 1`,
    ),
    forSession: db.prepare<[string, number], RunDbRow>(
      `SELECT * FROM runs WHERE session_key = ? ORDER BY started_at DESC, rowid DESC LIMIT ?`,
    ),
    history: db.prepare<[string], RunDbRow>(
      `SELECT * FROM runs WHERE session_key = ? ORDER BY started_at, rowid`,
    ),
    totals: db.prepare<[string], { input: number; output: number }>(
      `SELECT coalesce(sum(input_tokens), 0) AS input, coalesce(sum(output_tokens), 0) AS output FROM runs WHERE session_key = ?`,
    ),
    // Every session's latest run (same order as `latest`) with its token totals, in one pass.
    summaries: db.prepare<[], RunDbRow & { total_input: number; total_output: number }>(
      `SELECT * FROM (SELECT *, row_number() OVER w AS n, sum(input_tokens) OVER s AS total_input,
         sum(output_tokens) OVER s AS total_output FROM runs
         WINDOW w AS (PARTITION BY session_key ORDER BY started_at DESC, rowid DESC), s AS (PARTITION BY session_key))
       WHERE n = 1`,
    ),
    // Runs left 'running' or 'queued' by a crash are failed at start-up, never resumed silently.
    interrupted: db.prepare(
      `UPDATE runs SET status = 'failed', outcome = 'error', error = 'interrupted by a restart', ended_at = ?
       WHERE status IN ('queued', 'running')`,
    ),
    // Reported costs per session and currency (sums only within one currency).
    costs: db.prepare<[string], { amount: number; currency: string }>(
      `SELECT sum(cost_amount) AS amount, cost_currency AS currency FROM runs
       WHERE session_key = ? AND cost_amount IS NOT NULL GROUP BY cost_currency ORDER BY cost_currency`,
    ),
    allCosts: db.prepare<[], { key: string; amount: number; currency: string }>(
      `SELECT session_key AS key, sum(cost_amount) AS amount, cost_currency AS currency FROM runs
       WHERE cost_amount IS NOT NULL GROUP BY session_key, cost_currency ORDER BY session_key, cost_currency`,
    ),
    context: db.prepare<[string], { used: number; size: number }>(
      `SELECT context_used AS used, context_size AS size FROM runs WHERE session_key = ? AND context_used IS NOT NULL
       ORDER BY started_at DESC, rowid DESC LIMIT 1`,
    ),
    count: db.prepare<[string], { n: number }>(`SELECT count(*) AS n FROM runs WHERE session_key = ?`),
    interruptedOf: db.prepare(
      `UPDATE runs SET status = 'failed', outcome = 'error', error = 'interrupted by a restart', ended_at = ?
       WHERE status IN ('queued', 'running') AND session_key IN (SELECT value FROM json_each(?))`,
    ),
  };
}

export type RunStore = ReturnType<typeof createRunStore>;

export function createRunStore(db: Db) {
  const s = statements(db);
  return {
    start(runId: string, sessionKey: string, status: RunStatus, at: number): RunInfo {
      s.insert.run(runId, sessionKey, status, at);
      return toRun(s.get.get(runId)!);
    },
    save(run: RunInfo): void {
      s.update.run(
        run.status,
        run.outcome ?? null,
        run.error ?? null,
        run.endedAt ?? null,
        run.inputTokens,
        run.outputTokens,
        run.cost?.amount ?? null,
        run.cost?.currency ?? null,
        run.context?.used ?? null,
        run.context?.size ?? null,
        run.runId,
      );
    },
    get: (runId: string): RunInfo | undefined => {
      const r = s.get.get(runId);
      return r ? toRun(r) : undefined;
    },
    latest: (sessionKey: string) => {
      const r = s.latest.get(sessionKey);
      return r ? toRun(r) : undefined;
    },
    list: (sessionKey: string, limit = 50) => s.forSession.all(sessionKey, limit).map(toRun),
    /** Every run of the session, oldest first (`runs.list` of the contract). */
    history: (sessionKey: string) => s.history.all(sessionKey).map(toRun),
    totals: (sessionKey: string) => s.totals.get(sessionKey)!,
    /** What the session's agents reported beyond tokens: costs per currency, the latest context. */
    usage(sessionKey: string): { costs: Cost[]; context?: ContextUse } {
      const context = s.context.get(sessionKey);
      return { costs: s.costs.all(sessionKey), ...(context ? { context } : {}) };
    },
    /** Reported costs of every session, per currency (the fleet snapshot). */
    allCosts(): Map<string, Cost[]> {
      const out = new Map<string, Cost[]>();
      for (const { key, amount, currency } of s.allCosts.all()) {
        const list = out.get(key) ?? [];
        list.push({ amount, currency });
        out.set(key, list);
      }
      return out;
    },
    count: (sessionKey: string) => s.count.get(sessionKey)!.n,
    /** Latest run and token totals of every session that ran (the fleet snapshot). */
    summaries(): Map<string, { latest: RunInfo; input: number; output: number }> {
      const out = new Map<string, { latest: RunInfo; input: number; output: number }>();
      for (const r of s.summaries.all())
        out.set(r.session_key, { latest: toRun(r), input: r.total_input, output: r.total_output });
      return out;
    },
    /**
     * Fails the runs a crash cut short: of every session, or (when other gateways share the
     * database and run theirs) of the sessions this gateway just took over.
     */
    failInterrupted: (at: number, sessionKeys?: string[]) =>
      (sessionKeys ? s.interruptedOf.run(at, JSON.stringify(sessionKeys)) : s.interrupted.run(at)).changes,
  };
}
