// Reliability: one owner per session across gateway PROCESSES on one database (issue 13.5).
// Worker processes (ownership-worker.ts) run a gateway each with its real timers. A creates the
// targets and appends to them with fan-out; B (and each successor) creates watchers of its own and
// drains them; turns of main-session watchers drain too. Part 1: a notice for B's watcher reaches B
// within 2.5 s and never A; B drains; the next change reaches B once. Part 2: B is killed with
// SIGKILL 20 times under load, its successor started at once; four of those rounds first take B's
// lock file away (B lives on, fenced, until the kill). Then every acknowledgement chain is checked:
// each notice delivered exactly once (no gap, no repeat), exactly one queued per pending cursor in
// the gateway that runs the watcher, none elsewhere; no run of a session overlaps another; every
// audited write (acknowledgement, run, transcript row) was made by the gateway holding the session
// in that transaction; the new owner took over within 2 s of each kill.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openSqlite } from '../../electron/gateway/db/sqlite';
import type { Db } from '../../electron/gateway/db/sqlite';
import { lockPath } from '../../electron/gateway/ownership/lock';
import { tempDir } from '../helpers/gateway';
import { contextKeyOf, noticeText } from '../helpers/spec';

const KILLS = 20;
const FENCED_ROUNDS = new Set([5, 10, 15, 20]);
const TAKEOVER_LIMIT_MS = 2000;
const CMD_LIMIT_MS = 60_000;
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const TARGETS = Array.from({ length: 8 }, (_, i) => `agent:main:subagent:t${i}`);
const A_MAIN = 'agent:main:main';
const WB = 'agent:main:subagent:bw';

let dir: string;
let worker: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dir = tempDir('sightline-ownership-');
  worker = path.join(dir, 'ownership-worker.cjs');
  await build({
    entryPoints: [path.join(here, 'ownership-worker.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    external: ['better-sqlite3'],
    outfile: worker,
    logLevel: 'warning',
  });
});
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pair = (w: string, t: string) => `${w}\u0000${t}`;

interface Drain {
  L: number;
  after: number;
}

/** What the workers reported, folded as it arrives. */
const model = {
  drains: new Map<string, Drain[]>(),
  /** Drains a kill cut between their start and their return: acknowledged or not. */
  uncertain: new Map<string, number[]>(),
  refusedDrains: 0,
  staleRefused: new Map<string, number>(),
  landed: [] as string[],
  appends: 0,
};

class Worker {
  readonly child: ChildProcess;
  gatewayId = '';
  private buf = '';
  private open: [string, [string, number][]] | undefined;
  private next = 0;
  private readonly waiting = new Map<string, (v: unknown) => void>();
  private readonly failing = new Map<string, (err: Error) => void>();
  readonly ready: Promise<void>;
  readonly exited: Promise<void>;

  constructor(
    readonly name: string,
    dataDir: string,
  ) {
    this.child = spawn(process.execPath, [worker, dataDir, path.join(dir, 'none')], {
      cwd: root,
      env: { ...process.env, NODE_PATH: path.join(root, 'node_modules'), SIGHTLINE_OWNERSHIP_WORKER: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.push(this.child);
    let stderr = '';
    this.child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    let onReady: () => void = () => {};
    let onGone: (err: Error) => void = () => {};
    this.ready = new Promise((resolve, reject) => ((onReady = resolve), (onGone = reject)));
    this.exited = new Promise((resolve, reject) =>
      this.child.on('close', (code, signal) => {
        // A drain the kill cut short: its acknowledgement may or may not have landed.
        if (this.open) for (const [t, l] of this.open[1]) push(model.uncertain, pair(this.open[0], t), l);
        onGone(
          new Error(`${this.name} exited (${code ?? signal}) before it was ready: ${stderr.slice(0, 2000)}`),
        );
        if (signal === 'SIGKILL') return resolve();
        const err = new Error(`${this.name} exited by itself (${code ?? signal}): ${stderr.slice(0, 2000)}`);
        for (const fail of this.failing.values()) fail(err); // its unanswered commands fail with why
        reject(err);
      }),
    );
    this.child.stdout!.on('data', (d: Buffer) => {
      this.buf += d.toString();
      const lines = this.buf.split('\n');
      this.buf = lines.pop()!;
      for (const l of lines) this.fold(l, onReady);
    });
  }

  private fold(line: string, onReady: () => void): void {
    const sp = line.indexOf(' ');
    const tag = line.slice(0, sp < 0 ? undefined : sp);
    const rest = sp < 0 ? '' : line.slice(sp + 1);
    const [first, ...more] = rest.split(' ');
    const tail = more.join(' ');
    if (tag === 'R') {
      this.gatewayId = first!;
      onReady();
    } else if (tag === 'K') {
      this.waiting.get(first!)?.(tail ? JSON.parse(tail) : undefined);
      this.waiting.delete(first!);
    } else if (tag === 'E') model.appends++;
    else if (tag === 'P') this.open = [first!, JSON.parse(tail) as [string, number][]];
    else if (tag === 'D') {
      for (const [t, l, after] of JSON.parse(tail) as [string, number, number][])
        push(model.drains, pair(first!, t), { L: l, after });
      this.open = undefined;
    } else if (tag === 'F') {
      model.refusedDrains++;
      this.open = undefined;
    } else if (tag === 'S') model.staleRefused.set(this.name, Number(first));
    else if (tag === 'X') model.landed.push(`${this.name}: ${rest}`);
  }

  /** A command's answer; a worker that does not answer within CMD_LIMIT_MS fails the test by name. */
  cmd<T = unknown>(...args: string[]): Promise<T> {
    const id = String(++this.next);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${this.name}: no answer to "${args[0]}" within ${CMD_LIMIT_MS} ms`)),
        CMD_LIMIT_MS,
      );
      this.waiting.set(id, (v) => {
        clearTimeout(timer);
        this.failing.delete(id);
        resolve(v as T);
      });
      this.failing.set(id, (err) => {
        clearTimeout(timer);
        reject(err);
      });
      this.child.stdin!.write(`${id} ${args.join(' ')}\n`);
    });
  }

  kill(): Promise<void> {
    this.child.kill('SIGKILL');
    return this.exited;
  }
}

function push<T>(m: Map<string, T[]>, k: string, v: T): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

async function until<T>(what: string, limitMs: number, probe: () => T | undefined | Promise<T | undefined>) {
  const start = performance.now();
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return { value: v, ms: performance.now() - start };
    if (performance.now() - start > limitMs) throw new Error(`${what}: not within ${limitMs} ms`);
    await sleep(10);
  }
}

/** Checks one cursor's acknowledgements: a chain from the registration to the cursor's L. */
function chainError(initial: number, sure: Drain[], uncertain: number[], finalL: number): string | undefined {
  const byL = new Map<number, Drain>();
  for (const d of sure) {
    if (byL.has(d.L)) return `notice changesSince ${d.L} delivered twice`;
    byL.set(d.L, d);
  }
  let cur = initial;
  let used = 0;
  for (;;) {
    const d = byL.get(cur);
    if (d) {
      if (!(d.after > cur)) return `drain of changesSince ${cur} acknowledged nothing`;
      used++;
      cur = d.after;
    } else if (uncertain.includes(cur)) {
      // A drain cut by a kill whose acknowledgement landed: the next notice starts where it ended.
      const next = Math.min(...sure.map((x) => x.L).filter((l) => l > cur), finalL);
      if (!(next > cur)) break;
      cur = next;
    } else break;
  }
  if (used !== sure.length) return `${sure.length - used} drain(s) outside the chain from ${initial}`;
  if (cur !== finalL) return `chain ends at ${cur}, the cursor's L is ${finalL}`;
  return undefined;
}

it(
  `runs each session in one gateway process; survives ${KILLS} SIGKILLs of the owner with exactly-once notices`,
  { timeout: 420_000 },
  async () => {
    const dataDir = path.join(dir, 'data');
    fs.mkdirSync(path.join(dir, 'none'), { recursive: true });
    const initial = new Map<string, number>();
    const watchers = [WB, A_MAIN];

    const a = new Worker('A', dataDir);
    await a.ready;
    for (const t of TARGETS) await a.cmd('create', t);
    const db: Db = openSqlite(path.join(dataDir, 'sightline.db'), { fileMustExist: true });
    const claimsOf = (gatewayId: string) =>
      (db.prepare('SELECT count(*) AS n FROM owners WHERE gateway_id = ?').get(gatewayId) as { n: number }).n;

    // Part 1: a notice for a watcher B runs reaches B, once, and never A.
    let b = new Worker('B0', dataDir);
    await b.ready;
    await b.cmd('create', WB);
    const l0 = await b.cmd<number>('watch', WB, TARGETS[0]!);
    initial.set(pair(WB, TARGETS[0]!), l0);
    const notice = (l: number) => [
      { text: noticeText(TARGETS[0]!, l), contextKey: contextKeyOf(TARGETS[0]!) },
    ];
    const s1 = await a.cmd<number>('append', TARGETS[0]!);
    const first = await until('the notice in B', 2500, async () => {
      const q = await b.cmd<unknown[]>('peek', WB);
      return q.length ? q : undefined;
    });
    expect(first.value).toEqual(notice(l0));
    expect(await a.cmd('peek', WB)).toEqual([]);
    await a.cmd('polled'); // A's shared poll ran meanwhile
    expect(await a.cmd('peek', WB)).toEqual([]);
    expect(await b.cmd('drain', WB)).toEqual(notice(l0));
    await a.cmd('append', TARGETS[0]!);
    const second = await until('the next notice in B', 2500, async () => {
      const q = await b.cmd<unknown[]>('peek', WB);
      return q.length ? q : undefined;
    });
    await Promise.all([a.cmd('polled'), b.cmd('polled')]); // a repeat would have come by now
    expect(await b.cmd('peek', WB)).toEqual(notice(s1));
    expect(await a.cmd('peek', WB)).toEqual([]);

    // Part 2: load, and B killed 20 times.
    for (const t of TARGETS) initial.set(pair(A_MAIN, t), await a.cmd<number>('watch', A_MAIN, t));
    const keysOf = (i: number) => [`agent:b${i}:main`, `agent:main:subagent:b${i}`];
    const incarnation = async (w: Worker, i: number) => {
      for (const key of keysOf(i)) {
        await w.cmd('create', key);
        for (let k = 0; k < 3; k++) {
          const t = TARGETS[(i * 3 + k) % TARGETS.length]!;
          initial.set(pair(key, t), await w.cmd<number>('watch', key, t));
        }
        watchers.push(key);
      }
      await a.cmd('load', JSON.stringify({ append: true, targets: TARGETS, watchers }));
      await w.cmd('load', JSON.stringify({ append: false, targets: TARGETS, watchers }));
    };
    await incarnation(b, 0);
    const takeovers: number[] = [];
    const fencedTakeovers: number[] = [];
    let bySuccessor = 0;
    let staleBelieved = 0;
    for (let i = 1; i <= KILLS; i++) {
      await sleep(300 + Math.floor(Math.random() * 900));
      const dying = b;
      const dyingClaims = db
        .prepare('SELECT id FROM owners WHERE gateway_id = ?')
        .pluck()
        .all(dying.gatewayId);
      if (FENCED_ROUNDS.has(i)) {
        // Its lock is gone but it lives on: A takes its sessions over; whatever it still writes for
        // them (believing it runs them, at its old epoch) is refused.
        fs.rmSync(lockPath(dataDir, dying.gatewayId));
        const t = await until(
          'A takes over a fenced B',
          TAKEOVER_LIMIT_MS,
          () => claimsOf(dying.gatewayId) === 0,
        );
        fencedTakeovers.push(t.ms);
        const r = await dying.cmd<{ believed: number; refused: number }>('stale', ...keysOf(i - 1), WB);
        expect(r.refused).toBe(3);
        staleBelieved += r.believed;
        await sleep(600);
      }
      // Odd rounds: the successor is up before the kill and races A's poll for the takeover; even
      // rounds: it starts after the kill (its start-up claims what A has not taken yet).
      const early = i % 2 === 1 ? new Worker(`B${i}`, dataDir) : undefined;
      if (early) await early.ready;
      await dying.kill();
      b = early ?? new Worker(`B${i}`, dataDir);
      if (!FENCED_ROUNDS.has(i)) {
        const t = await until(
          'a new owner after the kill',
          TAKEOVER_LIMIT_MS,
          () => claimsOf(dying.gatewayId) === 0,
        );
        takeovers.push(t.ms);
        await b.ready;
        const holder = db.prepare('SELECT gateway_id FROM owners WHERE id = ?').pluck().get(dyingClaims[0]);
        if (holder === b.gatewayId) bySuccessor++;
      }
      await b.ready;
      await incarnation(b, i);
    }
    await sleep(800);

    // Settle: appends stop, every gateway's poll delivers the last of them, turns finish.
    await a.cmd('load', JSON.stringify({ append: false, targets: TARGETS, watchers }));
    await Promise.all([a.cmd('polled'), b.cmd('polled')]);
    await Promise.all([a.cmd('quiet'), b.cmd('quiet')]);
    const dumps = await Promise.all(
      [a, b].map((w) =>
        w.cmd<{
          queues: { sessionKey: string; entries: { text: string; contextKey?: string }[] }[];
          held: string[];
        }>('dump'),
      ),
    );

    expect(model.landed).toEqual([]);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    // Every audited write was made by the gateway that held the session in that transaction.
    const audit = db.prepare('SELECT what, gateway, owner, session_key FROM test_audit').all() as {
      what: string;
      gateway: string;
      owner: string | null;
      session_key: string;
    }[];
    expect(audit.filter((r) => r.owner !== r.gateway)).toEqual([]);
    const audited = (what: string) => audit.filter((r) => r.what === what).length;
    expect(audited('ack')).toBeGreaterThan(100);
    expect(audited('run')).toBeGreaterThan(10);

    // Exactly once: every cursor's acknowledgements chain from its registration to its L, and a
    // pending cursor has exactly one notice, queued in the gateway that runs its watcher.
    const cursors = db
      .prepare('SELECT watcher_key, target_key, last_seen, material FROM session_watch_cursors')
      .all() as { watcher_key: string; target_key: string; last_seen: number; material: number }[];
    expect(cursors.length).toBe(initial.size);
    const errors: string[] = [];
    let pendingChecked = 0;
    for (const c of cursors) {
      const k = pair(c.watcher_key, c.target_key);
      const err = chainError(
        initial.get(k)!,
        model.drains.get(k) ?? [],
        model.uncertain.get(k) ?? [],
        c.last_seen,
      );
      if (err) errors.push(`${c.watcher_key} → ${c.target_key}: ${err}`);
      const queued = dumps.map(
        (d) =>
          d.queues
            .find((q) => q.sessionKey === c.watcher_key)
            ?.entries.filter((e) => e.contextKey === contextKeyOf(c.target_key)) ?? [],
      );
      const holder = dumps.findIndex((d) => d.held.includes(c.watcher_key));
      expect(holder, `${c.watcher_key} is held by a live gateway`).toBeGreaterThanOrEqual(0);
      const expected =
        c.material > c.last_seen
          ? [{ text: noticeText(c.target_key, c.last_seen), contextKey: contextKeyOf(c.target_key) }]
          : [];
      if (expected.length) pendingChecked++;
      expect(queued[holder]).toEqual(expected);
      expect(queued[1 - holder]).toEqual([]);
    }
    expect(errors).toEqual([]);

    // No run of a session happened twice: a session's runs never overlap in time.
    const runs = db
      .prepare(
        'SELECT session_key, started_at, ended_at, status FROM runs ORDER BY session_key, started_at, rowid',
      )
      .all() as { session_key: string; started_at: number; ended_at: number | null; status: string }[];
    for (let i = 1; i < runs.length; i++) {
      const [p, r] = [runs[i - 1]!, runs[i]!];
      if (p.session_key !== r.session_key) continue;
      expect(p.ended_at, `run of ${p.session_key} still open when the next started`).not.toBeNull();
      expect(p.ended_at!).toBeLessThanOrEqual(r.started_at);
    }
    expect(runs.filter((r) => r.status === 'running')).toEqual([]);

    expect(takeovers).toHaveLength(KILLS - FENCED_ROUNDS.size);
    expect(Math.max(...takeovers, ...fencedTakeovers)).toBeLessThan(TAKEOVER_LIMIT_MS);
    const drains = [...model.drains.values()].reduce((n, d) => n + d.length, 0);
    const stale = [...model.staleRefused.values()].reduce((n, v) => n + v, 0);
    expect(drains).toBeGreaterThan(KILLS * 5);
    expect(stale).toBeGreaterThan(100);
    db.close();
    console.log(
      `reliability: ownership first notice ${first.ms.toFixed(0)} ms, next ${second.ms.toFixed(0)} ms; ` +
        `kills=${KILLS} (taken over by the successor ${bySuccessor}, by A ${takeovers.length - bySuccessor}) ` +
        `takeover max ${Math.max(...takeovers).toFixed(0)} ms median ${median(takeovers).toFixed(0)} ms; ` +
        `fenced rounds ${fencedTakeovers.length} (takeover max ${Math.max(...fencedTakeovers).toFixed(0)} ms, ` +
        `writes refused to a gateway that still believed it ran the session ${staleBelieved}, ` +
        `drains refused ${model.refusedDrains}); appends=${model.appends} drains=${drains} ` +
        `uncertain=${[...model.uncertain.values()].reduce((n, v) => n + v.length, 0)} pendingChecked=${pendingChecked} ` +
        `cursors=${cursors.length} runs=${runs.length} staleWritesRefused=${stale} audited ack/run/message=` +
        `${audited('ack')}/${audited('run')}/${audited('message')} landed=0`,
    );
    await Promise.all([a.kill(), b.kill()]);
  },
);

function median(xs: number[]): number {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)] ?? NaN;
}
