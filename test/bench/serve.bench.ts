// Benchmark of a shared gateway (issue 30.3): one `npm run serve` gateway (its own process, so
// its CPU and memory are its own) holding 20,000 sessions, 200 simulated agents acting through
// the contract over loopback TLS at 200 events/s in total (each agent sets its session's goal
// once a second: a signal-log event and a session change, pushed to everyone), and 1 → 10 →
// 25 → 50 connected clients. Measured per step: push latency to every client (from the action's
// send to the push's arrival, p50/p95/max; goal p95 ≤ 100 ms), events lost, the gateway's CPU
// per event and its memory, and how long the newest client takes to load the fleet (all 20,000
// sessions) while the agents act; memory per client is the slope between 1 and 50 clients.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createGateway } from '../../electron/gateway/index';
import { connectServe, type ServeClient } from '../../electron/serve/client';
import { collectingLogger } from '../helpers/logger';
import { tempDir } from '../helpers/temp';
import type { BenchResult } from './run';

const HOST = '127.0.0.5';
const SESSIONS = 20_000;
const AGENTS = 200;
const RATE = 200;
const STEPS = [1, 10, 25, 50];
const MEASURE_MS = 10_000;
const TICKS = 100; // /proc clock ticks per second (USER_HZ)

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const agentKey = (i: number) => `agent:main:subagent:agent-${String(i).padStart(3, '0')}`;

function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

/** The gateway process's CPU time (ms) and resident memory (MiB), from /proc. */
function usage(pid: number): { cpuMs: number; rssMiB: number } {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpuMs = ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
  const rss = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]!;
  return { cpuMs, rssMiB: Number(rss) / 1024 };
}

function seed(dataDir: string): number {
  const gw = createGateway({ dataDir, autoStart: false, logger: collectingLogger() });
  const t = performance.now();
  for (let i = 0; i < SESSIONS - AGENTS; i++) gw.sessions.create({ key: `agent:main:subagent:idle-${i}` });
  for (let i = 0; i < AGENTS; i++) gw.sessions.create({ key: agentKey(i), parentKey: 'agent:main:main' });
  gw.close();
  return performance.now() - t;
}

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, HOST, r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

async function startServe(
  dataDir: string,
  port: number,
): Promise<{ proc: ChildProcess; fingerprint: string; invite: string }> {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', 'electron/serve/cli.ts', '--listen', `${HOST}:${port}`, '--data-dir', dataDir],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  for (let waited = 0; !/^Invite: /m.test(out); waited += 50) {
    if (waited > 60_000 || proc.exitCode !== null) throw new Error(`serve did not start: ${out}`);
    await sleep(50);
  }
  return {
    proc,
    fingerprint: /^Fingerprint: (\S+)$/m.exec(out)![1]!,
    invite: /^Invite: (\S+)$/m.exec(out)![1]!,
  };
}

export async function run(): Promise<BenchResult> {
  const dataDir = tempDir('sightline-serve-bench-');
  const seedMs = seed(dataDir);
  const port = await freePort();
  const { proc, fingerprint, invite } = await startServe(dataDir, port);
  const url = `wss://${HOST}:${port}/ws`;
  const clients: ServeClient[] = [];
  try {
    const owner = connectServe({ url, pin: fingerprint, invite: { code: invite, name: 'owner' } });
    clients.push(owner);
    await owner.ready;
    const invitation = async (name: string) => {
      const r = await owner.invoke('accounts:invite');
      if (!r.ok) throw new Error(r.error.message);
      return { code: (r.value as { code: string }).code, name };
    };
    const driver = connectServe({ url, pin: fingerprint, invite: await invitation('agents') });
    clients.push(driver);
    await driver.ready;
    const t0 = performance.now();
    const snap = await driver.invoke('fleet:snapshot', {});
    const snapshotMs = performance.now() - t0;
    if (!snap.ok || (snap.value as { sessions: unknown[] }).sessions.length < SESSIONS)
      throw new Error('snapshot short');

    /** Send time of the latest action per agent session; latencies per push arrival. */
    const sentAt = new Map<string, number>();
    let samples: number[] = [];
    /** Per client and agent session: the first signal-log sequence pushed to it and how many.
     *  Every sequence of that session some client received, from that first on, should have
     *  reached it too: what did not is a lost push. */
    const tally: Map<string, { first: number; count: number }>[] = [];
    const union = new Map<string, Set<number>>();
    const watchers: ServeClient[] = [];
    const addWatcher = async (i: number) => {
      const c = connectServe({
        url,
        pin: fingerprint,
        invite: await invitation(`person-${i}`),
        onConnect: () => connects++,
      });
      await c.ready;
      const mine = new Map<string, { first: number; count: number }>();
      tally.push(mine);
      c.subscribe((batch) => {
        const now = performance.now();
        for (const e of batch.events)
          if (e.type === 'state:event' && e.event.kind === 'goal_changed') {
            const at = sentAt.get(e.sessionKey);
            const seen = mine.get(e.sessionKey);
            if (seen) seen.count++;
            else mine.set(e.sessionKey, { first: e.event.sequence, count: 1 });
            let all = union.get(e.sessionKey);
            if (!all) union.set(e.sessionKey, (all = new Set()));
            all.add(e.event.sequence);
            if (at !== undefined) samples.push(now - at);
          }
      });
      clients.push(c);
      watchers.push(c);
    };

    let sent = 0;
    let connects = 0;
    let stop = false;
    const drive = (async () => {
      const start = performance.now();
      for (let n = 0; !stop; n++) {
        const due = start + (n * 1000) / RATE;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        const key = agentKey(n % AGENTS);
        sentAt.set(key, performance.now());
        sent++;
        void driver.invoke('goals:set', { sessionKey: key, objective: `step ${n}` });
      }
    })();

    const rows: (string | number)[][] = [];
    const memory: { clients: number; rss: number }[] = [];
    for (const count of STEPS) {
      while (watchers.length < count) await addWatcher(watchers.length);
      // The newest client loads the fleet while the agents act (before the latency window, whose
      // pushes it would delay: the gateway serialises the 20,000 rows on its one thread).
      const l0 = performance.now();
      const fleet = await watchers.at(-1)!.invoke('fleet:snapshot', {});
      const loadMs = performance.now() - l0;
      if (!fleet.ok) throw new Error(fleet.error.message);
      await sleep(2000); // settle after the connections and the load
      samples = [];
      const sent0 = sent;
      const u0 = usage(proc.pid!);
      const b0 = process.cpuUsage();
      await sleep(MEASURE_MS);
      const u1 = usage(proc.pid!);
      const b1 = process.cpuUsage(b0);
      const events = sent - sent0;
      rows.push([
        count,
        Math.round(loadMs),
        Math.round((events * 1000) / MEASURE_MS),
        Number(quantile(samples, 0.5).toFixed(1)),
        Number(quantile(samples, 0.95).toFixed(1)),
        Number(Math.max(...samples).toFixed(1)),
        Number(((u1.cpuMs - u0.cpuMs) / events).toFixed(3)),
        Math.round(((u1.cpuMs - u0.cpuMs) / MEASURE_MS) * 100),
        Math.round(((b1.user + b1.system) / 1000 / MEASURE_MS) * 100),
        Number(os.loadavg()[0]!.toFixed(1)),
        Number(u1.rssMiB.toFixed(1)),
      ]);
      memory.push({ clients: count, rss: u1.rssMiB });
      console.log(`  ${count} clients: ${JSON.stringify(rows.at(-1))}`);
    }
    stop = true;
    await drive;
    await sleep(5000); // the last pushes arrive
    let lost = 0;
    for (const mine of tally)
      for (const [key, seen] of mine) {
        let expected = 0;
        for (const q of union.get(key)!) if (q >= seen.first) expected++;
        lost += expected - seen.count;
      }
    // Least-squares slope over the four steps: one step's RSS moves with the collector's timing.
    const mx = memory.reduce((t, m) => t + m.clients, 0) / memory.length;
    const my = memory.reduce((t, m) => t + m.rss, 0) / memory.length;
    const perClientKiB =
      (memory.reduce((t, m) => t + (m.clients - mx) * (m.rss - my), 0) /
        memory.reduce((t, m) => t + (m.clients - mx) ** 2, 0)) *
      1024;
    return {
      tables: [
        {
          title: `Shared gateway (npm run serve): ${SESSIONS.toLocaleString('en-US')} sessions, ${AGENTS} agents at ${RATE} events/s over loopback TLS`,
          columns: [
            'clients',
            'fleet load ms (newest client)',
            'events/s',
            'push p50 ms',
            'push p95 ms',
            'push max ms',
            'gateway CPU ms/event',
            'gateway CPU %',
            "clients' process CPU %",
            'machine load (1 min)',
            'gateway RSS MiB',
          ],
          rows,
          note:
            'Latency: from the agent action leaving its client to the push arriving at each client (all clients run in the benchmark process, ' +
            'the gateway in its own); pushes are batched per 16 ms. Goal: p95 ≤ 100 ms at 50 clients. CPU per event includes the action itself ' +
            'and its fan-out to every client, so it should grow linearly with clients. Fleet load: `fleet:snapshot` of all 20,000 sessions over TLS ' +
            'by the newest client while the agents act.',
        },
      ],
      figures: {
        'serve: seed 20,000 sessions (ms)': Math.round(seedMs),
        'serve: fleet:snapshot of 20,000 sessions over TLS (ms)': Math.round(snapshotMs),
        'serve: memory per connected client (KiB, least-squares RSS slope over 1 → 50)':
          Math.round(perClientKiB),
        'serve: pushes lost over the whole run (all clients)': lost,
        'serve: reconnections of the 50 clients during the run': connects - STEPS.at(-1)!,
      },
    };
  } finally {
    for (const c of clients) c.close();
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename ?? ''))
  await run();
