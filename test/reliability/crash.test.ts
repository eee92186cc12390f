// Reliability, part 1: crash safety. A child process (crash-worker.ts) runs a random workload on
// the gateway — appends with watcher fan-out, child_spawned seeding, explicit watches, notices,
// drains (acknowledgements), forced prunes with a 400-row cap, catalog checks over a temp Claude
// root — and the parent kills it with SIGKILL at random moments. After every kill the parent
// reopens the data dir (a restart: createGateway runs the start-up sweep) and checks the
// invariants of the spec against everything the child reported.
//
// CI: 50 kills (runs of 50–300 ms; one in eight lands during start-up). SIGHTLINE_LONG=1: 300 kills.
// The worker is bundled once with esbuild: `node --import tsx` costs seconds per spawn.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../electron/gateway';
import { writeClaude } from '../catalog/fixtures';
import { collectingLogger, tempDir } from '../helpers/gateway';
import { bundleWorker, workerEnv } from '../helpers/worker';
import { GHOST, ROW_CAP } from './crash-worker';
import { contextKeyOf, noticeText } from '../helpers/spec';

const LONG = process.env.SIGHTLINE_LONG === '1';
const KILLS = LONG ? 300 : 50;
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const CLOCK_START = Date.UTC(2026, 11, 2, 12, 0, 0);
const HOUR = 3_600_000;

let dir: string;
let worker: string;

beforeAll(async () => {
  dir = tempDir('sightline-crash-');
  worker = await bundleWorker(path.join(here, 'crash-worker.ts'), dir);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function mulberry32(a: number): () => number {
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Model {
  /** sequence → session key, for every event the child reported committed. */
  events: Map<number, string>;
  /** The highest L each cursor may have: (watcher, target) → bound. */
  bounds: Map<string, number>;
  /** Every sequence below this may have been pruned. */
  pruneKeep: number;
  heads: Map<string, number>;
  drains: number;
}

const pair = (w: string, t: string) => `${w}\u0000${t}`;

/** Runs the worker once and kills it; folds every complete stdout line into the model. */
function runChild(
  dataDir: string,
  claudeRoot: string,
  seed: number,
  clockStart: number,
  delayMs: number,
  duringStartUp: boolean,
  model: Model,
): Promise<{ ready: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [worker, dataDir, claudeRoot, String(seed), String(clockStart)], {
      cwd: root,
      env: workerEnv({ SIGHTLINE_CRASH_WORKER: '1' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let buf = '';
    let stderr = '';
    let ready = false;
    let timer: NodeJS.Timeout | undefined;
    const kill = () => child.kill('SIGKILL');
    if (duringStartUp) timer = setTimeout(kill, delayMs);
    const fold = (line: string) => {
      const [tag, a, b, c] = line.split(' ');
      if (tag === 'R') {
        ready = true;
        if (!duringStartUp) timer = setTimeout(kill, delayMs);
      } else if (tag === 'E') model.events.set(Number(a), b!);
      else if (tag === 'B') {
        const k = pair(a!, b!);
        model.bounds.set(k, Math.max(model.bounds.get(k) ?? 0, Number(c)));
      } else if (tag === 'P') model.pruneKeep = Math.max(model.pruneKeep, Number(a));
      else if (tag === 'D') model.drains++;
    };
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      const lines = buf.split('\n');
      buf = lines.pop()!; // an incomplete last line was cut by the kill: it reports nothing
      for (const l of lines) fold(l);
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal === 'SIGKILL') resolve({ ready });
      else reject(new Error(`worker exited by itself (${code}): ${stderr.slice(0, 2000)}`));
    });
  });
}

/** Checks every invariant; returns how many pending cursors had their one notice verified. */
function check(gw: Gateway, model: Model): number {
  const db = gw.db;
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  expect(db.pragma('foreign_key_check')).toEqual([]);

  // Every reported event is there, in its session, unless a prune the child started removed it
  // (then the session's pruned watermark covers it: historyGap stays exact).
  const rows = new Map(
    (
      db.prepare('SELECT sequence, session_key FROM session_state_events').all() as {
        sequence: number;
        session_key: string;
      }[]
    ).map((r) => [r.sequence, r.session_key]),
  );
  const heads = new Map(
    (
      db.prepare('SELECT session_key, last_sequence, pruned_max_sequence FROM session_state_heads').all() as {
        session_key: string;
        last_sequence: number;
        pruned_max_sequence: number;
      }[]
    ).map((h) => [h.session_key, h]),
  );
  const lost: number[] = [];
  for (const [seq, key] of model.events) {
    const present = rows.get(seq);
    if (present !== undefined) expect(present).toBe(key);
    else if (!(seq < model.pruneKeep && (heads.get(key)?.pruned_max_sequence ?? 0) >= seq)) lost.push(seq);
  }
  expect(lost).toEqual([]);

  // Heads: exactly the newest event of each session (or the pruned watermark when every row of
  // the session was pruned), never below a reported event, never lower than at the last restart.
  const newest = db
    .prepare('SELECT session_key, max(sequence) AS top FROM session_state_events GROUP BY session_key')
    .all() as { session_key: string; top: number }[];
  for (const n of newest) expect(heads.get(n.session_key)?.last_sequence).toBe(n.top);
  const withRows = new Set(newest.map((n) => n.session_key));
  for (const [key, h] of heads) {
    if (!withRows.has(key)) expect(h.last_sequence).toBe(h.pruned_max_sequence);
    expect(h.last_sequence).toBeGreaterThanOrEqual(model.heads.get(key) ?? 0);
    model.heads.set(key, h.last_sequence);
  }
  for (const [seq, key] of model.events) expect(heads.get(key)!.last_sequence).toBeGreaterThanOrEqual(seq);

  // Cursors: ordered positions, L never beyond what the child seeded, registered or acknowledged,
  // and after the sweep exactly one queued notice per pending pair whose watcher exists.
  const cursors = db
    .prepare('SELECT watcher_key, target_key, last_seen, notified, material FROM session_watch_cursors')
    .all() as {
    watcher_key: string;
    target_key: string;
    last_seen: number;
    notified: number;
    material: number;
  }[];
  expect(cursors.length).toBeGreaterThan(0);
  let pending = 0;
  for (const c of cursors) {
    const bound = model.bounds.get(pair(c.watcher_key, c.target_key));
    expect(bound, `cursor ${c.watcher_key} → ${c.target_key} was never announced`).toBeDefined();
    expect(c.last_seen, `L of ${c.watcher_key} → ${c.target_key} (${JSON.stringify(c)})`).toBeLessThanOrEqual(
      bound!,
    );
    expect(c.last_seen).toBeLessThanOrEqual(c.notified);
    expect(c.notified).toBeLessThanOrEqual(c.material);
    expect(c.material).toBeLessThanOrEqual(heads.get(c.target_key)?.last_sequence ?? 0);
    const queued = gw.notices.peek(c.watcher_key).filter((e) => e.contextKey === contextKeyOf(c.target_key));
    if (c.material > c.last_seen && gw.sessions.get(c.watcher_key)) {
      expect(queued).toEqual([
        { text: noticeText(c.target_key, c.last_seen), contextKey: contextKeyOf(c.target_key) },
      ]);
      expect(c.notified).toBe(c.material); // the sweep re-froze N at M
      pending++;
    } else expect(queued).toEqual([]);
  }
  expect(gw.notices.peek(GHOST)).toEqual([]);
  expect(
    (db.prepare('SELECT count(*) AS n FROM session_state_events').get() as { n: number }).n,
  ).toBeLessThan(ROW_CAP + 5_000);
  return pending;
}

it(
  `survives ${KILLS} SIGKILLs mid-workload with every invariant intact`,
  { timeout: LONG ? 1_800_000 : 180_000 },
  async () => {
    const dataDir = path.join(dir, 'data');
    const claudeRoot = path.join(dir, 'claude', 'projects');
    const none = path.join(dir, 'none');
    writeClaude(claudeRoot);
    const rnd = mulberry32(0x51647);
    const model: Model = { events: new Map(), bounds: new Map(), pruneKeep: 0, heads: new Map(), drains: 0 };
    let readyKills = 0;
    let pending = 0;
    for (let i = 0; i < KILLS; i++) {
      const duringStartUp = i > 0 && rnd() < 0.125;
      const delay = duringStartUp ? Math.floor(rnd() * 400) : 50 + Math.floor(rnd() * 250);
      const clockStart = CLOCK_START + i * HOUR;
      const r = await runChild(dataDir, claudeRoot, i + 1, clockStart, delay, duringStartUp, model);
      if (r.ready) readyKills++;
      const gw = createGateway({
        dataDir,
        now: () => clockStart + HOUR - 1,
        autoStart: false,
        logger: collectingLogger(),
        catalogRoots: { claude: claudeRoot, codex: none, opencode: none, pi: none },
      });
      try {
        pending += check(gw, model);
      } finally {
        gw.close();
      }
    }
    expect(readyKills).toBeGreaterThanOrEqual(Math.floor(KILLS * 0.75));
    expect(model.events.size).toBeGreaterThan(KILLS * 20);
    expect(model.pruneKeep).toBeGreaterThan(0);
    expect(pending).toBeGreaterThan(KILLS);
    console.log(
      `reliability: crash kills=${KILLS} events=${model.events.size} drains=${model.drains} pendingNotices=${pending} lost=0 (startup kills=${KILLS - readyKills})`,
    );
  },
);
