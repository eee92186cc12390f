// 200 live ACP sessions at once (issue 31): each a real ACP session started the way a person
// starts one (sessions.start with an ACP profile: the gateway spawns the agent over stdio,
// initialize, session/new, the first prompt), each agent a light stand-in process
// (agents/stream-agent.mjs) that streams, during one long prompt turn, an agent_message_chunk
// every 200 ms (5 a second) carrying its sequence number and its send time. One of the sessions
// is open in the page (browser mode in headless Chromium).
//   * Update → screen in the open session: from the agent's send to the frame that shows the line
//     painted (acp-live.page.ts). p50 / p95 / max. Goal p95 ≤ 100 ms.
//   * Nothing lost or reordered: every session's stored transcript holds lines 1…N once, in order;
//     so does the open session's painted text, as it streamed and once the turn landed.
//   * Gateway memory per live session: the gateway runs alone in its process
//     (acp-live.gateway.ts); its RSS (/proc) and JS heap with no session (after full collections)
//     and with 200 streaming (none forced: a collection would stall the timed lines), divided by
//     200; also 200 idle after their stream and 1 → 200 idle (without what the first agent
//     loads), after full collections. The agents' processes are not in it. Goal ≤ 1 MB.
//   * The gateway's CPU while the 200 stream, the load average, the agents' own memory.
// At the end every agent process must be gone (found in /proc by a token in their argv).
import { fork, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import type { Page } from 'playwright-core';
import { ensureRenderer, openBrowser, openSession, RENDERER_DIR, type Browser } from '../e2e/helpers';
import {
  instrument,
  lastShown,
  pageNotes,
  watchLiveLines,
  type PageNotes,
  type PaintedLine,
} from './acp-live.page';
import { agentProcesses, cpuSeconds, ownRenderers, rssBytes } from './acp-live.proc';
import type { BenchResult } from './run';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const AGENT = path.join(here, 'agents', 'stream-agent.mjs');
const SESSIONS = 200;
const EVERY_MS = 200;
/**
 * Lines sent within this long of the last of the 200 prompts' delivery are not timed with the
 * rest: the gateway starts 200 turns at once then (a burst a person does not cause); reported apart.
 */
const WARM_UP_MS = 2000;
/** Lines per streaming turn: a minute at 5 a second. */
const LINES = 300;
/** Starts in flight at once (a person's fleet grows a few at a time; 200 at once only queues). */
const STARTING = 8;

const MB = 1024 * 1024;
const round = (x: number, d = 2) => Number(x.toFixed(d));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

async function until(
  what: string,
  ok: () => Promise<boolean> | boolean,
  ms: number,
  every = 200,
): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(every);
  }
}

/** What is wrong with `text` as the lines "seq 1 …" to "seq n …", each once, in order ('' if nothing). */
export function sequenceFault(text: string, n: number): string {
  const seqs = [...text.matchAll(/seq (\d+) sent \d+/g)].map((m) => Number(m[1]));
  const wrong = seqs.findIndex((s, i) => s !== i + 1);
  if (wrong !== -1) return `line ${wrong + 1} is seq ${seqs[wrong]}`;
  return seqs.length === n ? '' : `${seqs.length} of ${n} lines`;
}

/** The gateway in its own process, and a call into it. */
interface GatewayProcess {
  pid: number;
  call<T>(op: string, args?: Record<string, unknown>): Promise<T>;
  exited: Promise<void>;
  child: ChildProcess;
}

/** ACP_LIVE_CPU_PROF=<dir>: the gateway writes a CPU profile (0.5 ms samples) there when it exits. */
const cpuProfile = (dir: string | undefined) =>
  dir ? ['--cpu-prof', '--cpu-prof-interval=500', `--cpu-prof-dir=${dir}`] : [];

async function startGatewayProcess(dir: string): Promise<GatewayProcess> {
  const bundle = path.join(dir, 'gateway.cjs');
  await esbuild.build({
    entryPoints: [path.join(here, 'acp-live.gateway.ts')],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['better-sqlite3', 'electron'],
    logLevel: 'error',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const child = fork(bundle, [], {
    cwd: root,
    execArgv: ['--expose-gc', ...cpuProfile(process.env.ACP_LIVE_CPU_PROF)],
    env: { ...process.env, NODE_PATH: path.join(root, 'node_modules') },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let next = 1;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const up = new Promise<void>((resolve, reject) => {
    waiting.set(0, { resolve: () => resolve(), reject });
    child.once('exit', (code) => reject(new Error(`the gateway process exited (${code}) before it was up`)));
  });
  child.on('message', (m: { id: number; value?: unknown; error?: string }) => {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.error !== undefined) w?.reject(new Error(m.error));
    else w?.resolve(m.value);
  });
  await up;
  return {
    pid: child.pid!,
    child,
    exited,
    call: <T>(op: string, args: Record<string, unknown> = {}) =>
      new Promise<T>((resolve, reject) => {
        const id = next++;
        waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ id, op, ...args });
      }),
  };
}

interface Memory {
  rss: number;
  heap: number;
}
/**
 * The gateway's RSS from /proc and its JS heap with buffers; with `collect`, after full
 * collections in it (a forced collection stalls it, so not while the open session is timed).
 */
async function memoryOf(g: GatewayProcess, collect = true): Promise<Memory> {
  const m = await g.call<{ heapUsed: number; external: number }>('memory', { collect });
  return { rss: rssBytes(g.pid), heap: m.heapUsed + m.external };
}

const runsDone = (g: GatewayProcess, keys: string[], n: number) => async () =>
  (await g.call<{ runs: number; busy: number }[]>('runs', { keys })).every(
    (r) => r.runs >= n && r.busy === 0,
  );

/**
 * The sessions, started as a person starts them: the person adds the profile and allows its
 * command line in the page's consent prompt (Allow); then the first session, and once its turn
 * is over (`afterFirst` measures) the rest, a few at a time.
 */
async function startSessions(g: GatewayProcess, page: Page, token: string, afterFirst: () => Promise<void>) {
  const proposed = g.call<string>('profile', {
    profile: {
      id: 'stand-in',
      name: 'Stand-in',
      command: process.execPath,
      args: [AGENT, `--bench-run=${token}`],
    },
  });
  const prompt = page.locator('[data-testid="consent-prompt"]');
  // A profile refused before asking is reported as itself.
  await Promise.race([prompt.waitFor({ timeout: 60_000 }), proposed]);
  await prompt.locator('[data-testid="consent-allow"]').click();
  const profileId = await proposed;
  const start = (i: number) =>
    g.call<string>('start', { profileId, message: 'Say you are ready.', label: `stand-in ${i}` });
  const keys = [await start(0)];
  await until('the first turn', runsDone(g, keys, 1), 60_000);
  await afterFirst();
  let i = 1;
  const worker = async () => {
    while (i < SESSIONS) keys.push(await start(i++));
  };
  await Promise.all(Array.from({ length: STARTING }, worker));
  await until('every first turn', runsDone(g, keys, 1), 300_000, 1000);
  return keys;
}

interface Measured {
  memory: { none: Memory; one: Memory; idle: Memory; streaming: Memory; after: Memory };
  /** Lines sent before this (epoch ms) were sent while the 200 prompts were still being delivered. */
  warmEnd: number;
  agents: { live: number; rss: number };
  cpu: { seconds: number; wall: number };
  /** The gateway's event-loop delay while they streamed (after the warm-up), p50 / p95 / max ms. */
  loopDelay: number[];
  /** The page's renderer processes' CPU while timed, share of one core. */
  pageCpu: number;
  load: { start: number; end: number };
  notes: PageNotes;
  /** When the gateway emitted each line of the open session. */
  emitted: Record<string, number>;
  /** What is wrong with the open session's landed message in the page ('' when nothing). */
  landed: string;
  /** Each session's assistant messages as the gateway stored them. */
  stored: string[][];
}

/** Every session streams one long turn; the open one is watched in the page. */
async function stream(g: GatewayProcess, page: Page, keys: string[], token: string) {
  const cpu0 = cpuSeconds(g.pid);
  const t0 = Date.now();
  const load0 = os.loadavg()[0]!;
  await g.call('send', { keys, text: `Please stream ${LINES} every ${EVERY_MS} ms.` });
  const prompted = Date.now();
  await until('the warm-up', () => Date.now() >= prompted + WARM_UP_MS, WARM_UP_MS + 1000);
  await g.call('loopStart');
  const renderers = ownRenderers();
  const pageCpu0 = renderers.reduce((s, pid) => s + cpuSeconds(pid), 0);
  const timed0 = Date.now();
  await until('the open session half-way', async () => (await lastShown(page)) >= LINES / 2, 120_000);
  const streaming = await memoryOf(g, false);
  const agents = agentProcesses(token);
  // Then the runs, polled once a second (200 run lists each time are work for the gateway).
  await until('the open session to the end', async () => (await lastShown(page)) >= LINES, 120_000);
  await until('every streaming turn', runsDone(g, keys, 2), 180_000, 1000);
  const loopDelay = await g.call<number[]>('loopDelay');
  const pageCpu =
    (renderers.reduce((s, pid) => s + cpuSeconds(pid), 0) - pageCpu0) / ((Date.now() - timed0) / 1000);
  return {
    streaming,
    after: await memoryOf(g),
    warmEnd: prompted + WARM_UP_MS,
    loopDelay,
    pageCpu,
    agents: { live: agents.length, rss: agents.reduce((s, a) => s + a.rss, 0) },
    cpu: { seconds: cpuSeconds(g.pid) - cpu0, wall: (Date.now() - t0) / 1000 },
    load: { start: load0, end: os.loadavg()[0]! },
  };
}

async function measure(g: GatewayProcess, page: Page, token: string): Promise<Measured> {
  const none = await memoryOf(g);
  let one = none;
  const keys = await startSessions(g, page, token, async () => {
    one = await memoryOf(g);
  });
  const idle = await memoryOf(g);
  // The first session, found as a person finds one among 200 (the fleet list is virtualised):
  // typed into the fleet filter, opened, the filter cleared so the whole fleet is on screen again.
  const filter = page.locator('[data-testid="fleet-filter"]');
  await filter.fill('stand-in 0');
  await openSession(page, keys[0]!);
  await filter.fill('');
  await g.call('watch', { key: keys[0] });
  await watchLiveLines(page, keys[0]!);
  const streamed = await stream(g, page, keys, token);
  const message = page.locator('[data-testid="transcript-message"][data-role="assistant"] .text').last();
  const landedText = async () => (await message.textContent()) ?? '';
  await until(
    'the landed turn in the page',
    async () => (await landedText()).includes(`seq ${LINES} `),
    30_000,
  );
  return {
    memory: { none, one, idle, streaming: streamed.streaming, after: streamed.after },
    warmEnd: streamed.warmEnd,
    agents: streamed.agents,
    cpu: streamed.cpu,
    loopDelay: streamed.loopDelay,
    pageCpu: streamed.pageCpu,
    load: streamed.load,
    notes: await pageNotes(page),
    emitted: await g.call<Record<string, number>>('emitted'),
    landed: sequenceFault(await landedText(), LINES),
    stored: await g.call<string[][]>('transcripts', { keys }),
  };
}

const spread = (xs: number[], max = false) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return `${pct(sorted, 0.5)} / ${pct(sorted, 0.95)}${max ? ` / ${sorted.at(-1)}` : ''}`;
};

/** The open session's lines sent after the warm-up, from the agent's send to the screen, and each leg. */
function latencyFigures(m: Measured) {
  const emitted = m.emitted;
  const timed = m.notes.lines.filter((l) => l.painted > 0 && l.arrived > 0 && emitted[l.seq] !== undefined);
  const all = timed.filter((l) => l.sent >= m.warmEnd);
  const warm = timed.filter((l) => l.sent < m.warmEnd).map((l) => l.painted - l.sent);
  const leg = (from: (l: PaintedLine) => number, to: (l: PaintedLine) => number) =>
    spread(all.map((l) => to(l) - from(l)));
  const emit = (l: PaintedLine) => emitted[l.seq]!;
  const total = all.map((l) => l.painted - l.sent).sort((a, b) => a - b);
  const long = m.notes.longTasks.filter((t) => t.at >= m.warmEnd);
  return {
    p95: pct(total, 0.95),
    figures: {
      'update → screen in the open session, p50 / p95 / max ms (goal p95 ≤ 100)': spread(total, true),
      '  agent send → the gateway emits it (pipe, scheduler, ACP parse, live output), p50 / p95 ms': leg(
        (l) => l.sent,
        emit,
      ),
      '  → the push reaches the page (push bridge, JSON, WebSocket, page main thread), p50 / p95 ms': leg(
        emit,
        (l) => l.arrived,
      ),
      "  → in the DOM (the page's next frame applies it, React commits), p50 / p95 ms": leg(
        (l) => l.arrived,
        (l) => l.committed,
      ),
      '  → painted (the frame drawn), p50 / p95 ms': leg(
        (l) => l.committed,
        (l) => l.painted,
      ),
      [`lines timed / sent in the first ${WARM_UP_MS / 1000} s, while the ${SESSIONS} prompts were delivered (not timed; their max ms)`]: `${all.length} / ${warm.length} (${Math.max(...warm)})`,
      "the page's long tasks (> 50 ms) while timed: count, longest ms": `${long.length}, ${Math.round(Math.max(0, ...long.map((t) => t.ms)))}`,
    },
  };
}

/** Every session's stored transcript and the open one's painted text: lines 1…N once, in order. */
function integrityFigures(m: Measured) {
  const painted = m.notes.lines.filter((l) => l.painted > 0).length;
  const faults = m.stored
    .map((texts, i) => ({
      i,
      fault: texts.length === 2 ? sequenceFault(texts[1]!, LINES) : `${texts.length} messages`,
    }))
    .filter((x) => x.fault);
  const disorder = m.notes.disorder;
  return {
    intact: faults.length === 0 && disorder.length === 0 && m.landed === '' && painted === LINES,
    figures: {
      'lines painted in the open session, in order': `${painted} of ${LINES}${disorder.length ? ` (${disorder.slice(0, 3).join('; ')})` : ''}`,
      "the open session's landed message in the page": m.landed || `lines 1–${LINES}, in order`,
      'stored transcripts with every line once, in order': `${SESSIONS - faults.length} of ${SESSIONS}${faults.length ? ` (session ${faults[0]!.i}: ${faults[0]!.fault})` : ''}`,
    },
  };
}

function memoryFigures(m: Measured) {
  const mem = m.memory;
  const per = (a: Memory, b: Memory, n: number) =>
    `${round((b.rss - a.rss) / n / MB)} / ${round((b.heap - a.heap) / n / MB)}`;
  const both = (x: Memory) => `${round(x.rss / MB, 1)} / ${round(x.heap / MB, 1)}`;
  return {
    perSession: (mem.streaming.rss - mem.none.rss) / SESSIONS,
    figures: {
      'gateway RSS / JS heap, no session (after full collections), MB': both(mem.none),
      [`gateway RSS / JS heap, ${SESSIONS} sessions streaming (as they stream, no forced collection), MB`]:
        both(mem.streaming),
      [`gateway memory per live session, 0 → ${SESSIONS} streaming, RSS / heap MB (goal ≤ 1)`]: per(
        mem.none,
        mem.streaming,
        SESSIONS,
      ),
      [`  0 → ${SESSIONS} live, idle after their stream (after full collections), RSS / heap MB`]: per(
        mem.none,
        mem.after,
        SESSIONS,
      ),
      [`  1 → ${SESSIONS} live, idle before it (without what the first agent loads), RSS / heap MB`]: per(
        mem.one,
        mem.idle,
        SESSIONS - 1,
      ),
      'agent processes while streaming / their RSS summed (shared pages counted in each), MB': `${m.agents.live} / ${round(m.agents.rss / MB, 0)}`,
    },
  };
}

function figuresOf(m: Measured): Record<string, string | number> {
  const latency = latencyFigures(m);
  const integrity = integrityFigures(m);
  const memory = memoryFigures(m);
  return {
    'live ACP sessions (stand-in agent processes) / updates per session per second': `${SESSIONS} / ${1000 / EVERY_MS}`,
    'lines streamed per session / in all': `${LINES} / ${(LINES * SESSIONS).toLocaleString('en-US')}`,
    ...latency.figures,
    ...integrity.figures,
    ...memory.figures,
    [`gateway CPU while the ${SESSIONS} streamed, % of one core`]: round(
      (m.cpu.seconds / m.cpu.wall) * 100,
      1,
    ),
    "the page's renderer process CPU while timed, % of one core": round(m.pageCpu * 100, 1),
    "the gateway's event-loop delay while timed, p50 / p95 / max ms": m.loopDelay.join(' / '),
    "machine: cores / load average (1 min) at the stream's start / end": `${os.availableParallelism()} / ${round(m.load.start)} / ${round(m.load.end)}`,
    'goals met': latency.p95 <= 100 && integrity.intact && memory.perSession <= MB ? 'yes' : 'NO',
  };
}

/**
 * How many agent processes of this run outlived the gateway's close (polled for 15 s: close ends
 * them as it returns); any found are killed so none is left running, and the run fails.
 */
async function reapAgents(token: string): Promise<number> {
  try {
    await until('the agent processes to end', () => agentProcesses(token).length === 0, 15_000);
    return 0;
  } catch {
    const left = agentProcesses(token);
    for (const p of left) process.kill(p.pid, 'SIGKILL');
    return left.length;
  }
}

export async function run(): Promise<BenchResult> {
  await ensureRenderer();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-acp-live-'));
  const token = crypto.randomUUID();
  let g: GatewayProcess | undefined;
  let browser: (Browser & { errors: string[] }) | undefined;
  let figures: Record<string, string | number>;
  let left = 0;
  try {
    g = await startGatewayProcess(dir);
    const data = path.join(dir, 'data');
    const { url } = await g.call<{ url: string }>('open', { dataDir: data, rendererDir: RENDERER_DIR });
    browser = await openBrowser(url);
    await instrument(browser.page);
    figures = figuresOf(await measure(g, browser.page, token));
    if (browser.errors.length) figures['page errors'] = browser.errors.slice(0, 3).join(' | ');
  } finally {
    await browser?.close();
    if (g) {
      await g.call('close').catch(() => undefined);
      g.child.disconnect();
      await g.exited;
    }
    left = await reapAgents(token);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  if (left > 0) throw new Error(`${left} agent processes outlived the gateway's close (killed now)`);
  figures['agent processes left after the gateway closed'] = left;
  for (const [k, v] of Object.entries(figures)) console.log(`  ${k}: ${v}`);
  return { figures };
}
