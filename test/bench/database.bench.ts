// The state database's start-up check and backup (issue 14.6): PRAGMA quick_check on a
// 50,000-event signal log (the retention cap) must stay under a second; the whole start-up
// (open, check, migrations, sweep) and one online backup are measured beside it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createGateway } from '../../electron/gateway/index';
import { quickCheck } from '../../electron/gateway/db/integrity';
import { openSqlite } from '../../electron/gateway/db/sqlite';
import { silentLogger } from '../helpers/logger';

const ROWS = 50_000;
const RUNS = 5;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (x: number) => Number(x.toFixed(1));

export async function run(): Promise<Record<string, string | number>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-db-'));
  try {
    const gw = createGateway({ dataDir: dir, autoStart: false, logger: silentLogger });
    const start = Date.now() - ROWS * 1000;
    const insert = gw.db.prepare(
      `INSERT INTO session_state_events
         (session_key, agent_id, kind, actor_type, actor_id, run_id, occurred_at, summary, payload, dedupe_key)
       VALUES (?, 'main', 'run_completed', 'agent', 'main', ?, ?, ?, ?, ?)`,
    );
    gw.db.transaction(() => {
      for (let i = 0; i < ROWS; i++)
        insert.run(
          `agent:main:subagent:s${i % 1000}`,
          `run-${i}`,
          // Within the 30-day retention: the start-up sweep must not prune what is measured.
          start + i * 1000,
          `Run ${i} completed: a summary line of about the length the runtime writes.`,
          JSON.stringify({ tokens: { input: i, output: i % 97 }, text: 'x'.repeat(150) }),
          i % 3 === 0 ? `dedupe-${i}` : null,
        );
    })();
    const backupStart = performance.now();
    await gw.backups.takeNow();
    const backupMs = performance.now() - backupStart;
    gw.close();
    const file = path.join(dir, 'sightline.db');

    const checks: number[] = [];
    const startups: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      const db = openSqlite(file);
      const t0 = performance.now();
      const damage = quickCheck(db);
      checks.push(performance.now() - t0);
      const rows = (db.prepare('SELECT count(*) AS n FROM session_state_events').get() as { n: number }).n;
      db.close();
      if (damage.length > 0) throw new Error(`quick_check found damage: ${damage[0]}`);
      if (rows !== ROWS) throw new Error(`${rows} events, not ${ROWS}: the start-up sweep pruned the log`);
      const t1 = performance.now();
      createGateway({ dataDir: dir, autoStart: false, logger: silentLogger }).close();
      startups.push(performance.now() - t1);
    }
    const check = median(checks);
    return {
      'load average (1 min) at start': round(os.loadavg()[0]!),
      'database size, 50,000-event log (MB)': round(fs.statSync(file).size / 1e6),
      'quick_check, median of 5 (ms)': round(check),
      'quick_check target < 1,000 ms': check < 1000 ? 'met' : 'MISSED',
      'start-up (open, check, migrate, sweep), median of 5 (ms)': round(median(startups)),
      'online backup of the same database (ms)': round(backupMs),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
