// Where the time of the two hot paths goes (issue 18): `npx tsx test/bench/profile.ts`.
// Not a *.bench.ts module (npm run bench does not run it): it takes each path apart, step by step,
// on the same workloads as the side-by-side comparison, and prints medians in microseconds.
//
// changesSince, a full 200-event page from a 50,000-row log, split into
//   lookups (head, earliest) · page read in SQLite (rows visited, columns read in C, nothing
//   decoded) · row decoding (better-sqlite3 turning rows into JS objects or arrays) · payload
//   parsing (JSON.parse) · object shaping (the StateEvent objects).
// An append (a notify event on a target with 3 watchers), split into
//   the transaction (BEGIN IMMEDIATE + COMMIT) · each statement · the JS around them · WAL
//   frames per append · checkpoints (fsync) per append.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createGateway, type Gateway } from '../../electron/gateway/index';
import { silentLogger } from '../helpers/logger';

const round = (x: number, d = 1) => Number(x.toFixed(d));

function median(fn: () => unknown, n: number): number {
  for (let i = 0; i < Math.min(200, n); i++) fn();
  const xs: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    fn();
    xs.push(Number(process.hrtime.bigint() - t) / 1000);
  }
  xs.sort((a, b) => a - b);
  return round(xs[xs.length >> 1]!, 2);
}

function open(): { gw: Gateway; dir: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-profile-'));
  return { gw: createGateway({ dataDir: dir, autoStart: false, logger: silentLogger }), dir };
}

function profileChangesSince(): Record<string, number> {
  const { gw, dir } = open();
  const out: Record<string, number> = {};
  try {
    const key = 'agent:main:subagent:log';
    gw.sessions.create({ key });
    let mid = 0;
    gw.db.transaction(() => {
      for (let i = 0; i < 50_000; i++) {
        const e = gw.state.record({
          sessionKey: key,
          kind: i % 3 ? 'compacted' : 'run_failed',
          actorType: 'system',
          summary: i % 3 ? 'session compacted' : 'child run failed',
          ...(i % 3 ? {} : { payload: { outcome: 'error' } }),
        })!;
        if (i === 25_000) mid = e.sequence;
      }
    })();
    const db = gw.db;
    const where = `FROM session_state_events WHERE session_key = ? AND agent_id = ? AND sequence > ? ORDER BY sequence LIMIT ?`;
    const args = [key, 'main', mid, 201] as const;
    const q = {
      head: db.prepare(
        `SELECT last_sequence, pruned_max_sequence FROM session_state_heads WHERE session_key = ? AND agent_id = ?`,
      ),
      earliest: db.prepare(
        `SELECT sequence FROM session_state_events WHERE session_key = ? AND agent_id = ? ORDER BY sequence LIMIT 1`,
      ),
      indexOnly: db.prepare(`SELECT count(*) FROM (SELECT sequence ${where})`).pluck(),
      columnsInC: db
        .prepare(
          `SELECT count(*), sum(length(kind) + length(actor_type) + length(summary) + ifnull(length(payload), 0) + occurred_at) FROM (SELECT * ${where})`,
        )
        .raw(),
      objects10: db.prepare(
        `SELECT sequence, session_key, agent_id, kind, actor_type, actor_id, run_id, occurred_at, summary, payload ${where}`,
      ),
      arrays8: db
        .prepare(
          `SELECT sequence, kind, actor_type, actor_id, run_id, occurred_at, summary, payload ${where}`,
        )
        .raw(),
      dataVersion: db.prepare('PRAGMA data_version').pluck(),
    };
    const n = 3000;
    out['contract: changesSince, full 200-event page'] = median(
      () => gw.state.changesSince(key, mid, { limit: 200 }),
      n,
    );
    out['contract: changesSince, 10 events'] = median(
      () => gw.state.changesSince(key, gw.state.version(key) - 10),
      n,
    );
    out['lookups: head'] = median(() => q.head.get(key, 'main'), n);
    out['lookups: earliest retained sequence'] = median(() => q.earliest.get(key, 'main'), n);
    out['page read: 201 index entries, nothing decoded'] = median(() => q.indexOnly.get(...args), n);
    out['page read: 201 rows, columns read in C, nothing decoded'] = median(
      () => q.columnsInC.get(...args),
      n,
    );
    out['row decoding: 201 rows as objects, 10 columns (today)'] = median(() => q.objects10.all(...args), n);
    out['row decoding: 201 rows as arrays, 8 columns'] = median(() => q.arrays8.all(...args), n);
    const rows = q.objects10.all(...args) as { payload: string | null }[];
    out['payload parsing: JSON.parse of the 67 payloads'] = median(() => {
      for (const r of rows) if (r.payload !== null) JSON.parse(r.payload);
    }, n);
    // The shaping the state core does, written out so that this script also runs on older checkouts.
    out['object shaping: 200 StateEvent objects from decoded rows'] = median(
      () =>
        rows.slice(0, 200).map((r0) => {
          const r = r0 as Record<string, unknown>;
          const e: Record<string, unknown> = {
            sequence: r.sequence,
            kind: r.kind,
            actorType: r.actor_type,
            occurredAt: r.occurred_at,
            summary: r.summary,
          };
          if (r.actor_id !== null) e.actorId = r.actor_id;
          if (r.run_id !== null) e.runId = r.run_id;
          return e;
        }),
      n,
    );
    out['PRAGMA data_version (a cache check)'] = median(() => q.dataVersion.get(), n);
  } finally {
    gw.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

function profileAppend(): Record<string, number> {
  const { gw, dir } = open();
  const out: Record<string, number> = {};
  try {
    const db = gw.db;
    const targets = Array.from({ length: 100 }, (_, i) => `agent:main:subagent:t${i}`);
    for (const t of targets) gw.sessions.create({ key: t });
    for (const t of targets)
      for (let w = 0; w < 3; w++) {
        const key = `agent:main:subagent:w${w}-${t.slice(-4)}`;
        gw.sessions.create({ key });
        gw.state.registerWatch(key, t);
      }
    let i = 0;
    const record = () =>
      gw.state.record({
        sessionKey: targets[i++ % 100]!,
        kind: 'human_direct_message',
        actorType: 'human',
        summary: 'human message via bench',
      });
    for (let k = 0; k < 2000; k++) record();
    const n = 5000;
    const cpu = (fn: () => unknown) => {
      const c0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      for (let k = 0; k < n; k++) fn();
      const wall = Number(process.hrtime.bigint() - t0) / 1000 / n;
      const c = process.cpuUsage(c0);
      return { wall: round(wall), user: round(c.user / n), sys: round(c.system / n) };
    };
    const full = cpu(record);
    out['contract: record(), wall µs'] = full.wall;
    out['contract: record(), user CPU µs'] = full.user;
    out['contract: record(), kernel CPU µs'] = full.sys;

    const begin = db.prepare('BEGIN IMMEDIATE');
    const commit = db.prepare('COMMIT');
    const empty = cpu(() => {
      begin.run();
      commit.run();
    });
    out['transaction: BEGIN IMMEDIATE + COMMIT, nothing written, wall µs'] = empty.wall;
    const insert = db.prepare(
      `INSERT INTO session_state_events (session_key, agent_id, kind, actor_type, actor_id, run_id, occurred_at, summary, payload, dedupe_key)
       VALUES (?, 'main', 'compacted', 'system', NULL, NULL, ?, 'session compacted', NULL, NULL)`,
    );
    const insertOnly = cpu(() => {
      begin.run();
      insert.run(targets[i++ % 100], Date.now());
      commit.run();
    });
    out['transaction with the event insert alone, wall µs'] = insertOnly.wall;

    // WAL frames and checkpoints per append, from the WAL file with automatic checkpoints off.
    const wal = path.join(dir, 'sightline.db-wal');
    const autocheckpoint = db.pragma('wal_autocheckpoint', { simple: true }) as number;
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.pragma('wal_autocheckpoint = 0');
    const noCkpt = cpu(record);
    const frames = (fs.statSync(wal).size - 32) / (4096 + 24) / n;
    out['WAL frames per append'] = round(frames, 2);
    out['record() without checkpoints, wall µs'] = noCkpt.wall;
    out['record() without checkpoints, kernel CPU µs'] = noCkpt.sys;
    const t0 = process.hrtime.bigint();
    db.pragma('wal_checkpoint(PASSIVE)');
    const ckptUs = Number(process.hrtime.bigint() - t0) / 1000;
    out['one checkpoint of those appends (copy back + 2 fsyncs), µs per append'] = round(ckptUs / n, 1);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.pragma(`wal_autocheckpoint = ${autocheckpoint}`);
  } finally {
    gw.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

const load = os.loadavg()[0]!.toFixed(2);
console.log(`load average (1 min) ${load}; ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}`);
for (const [name, fn] of [
  ['changesSince (µs, median)', profileChangesSince],
  ['append', profileAppend],
] as const) {
  console.log(`\n${name}`);
  for (const [k, v] of Object.entries(fn())) console.log(`  ${k}: ${v}`);
}
