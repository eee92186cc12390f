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
//     (acp-live.gateway.ts); its RSS (/proc) and JS heap after full collections with no session
//     and with 200 streaming, divided by 200 (and from 1 to 200, without what the first agent
//     loads). The agents' processes are not in it. Goal ≤ 1 MB.
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
import { lastShown, pageNotes, watchLiveLines, type PageNotes } from './acp-live.page';
import { agentProcesses, cpuSeconds, rssBytes } from './acp-live.proc';
import type { BenchResult } from './run';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const AGENT = path.join(here, 'agents', 'stream-agent.mjs');
const SESSIONS = 200;
const EVERY_MS = 200;
/** Lines per streaming turn: a minute at 5 a second. */
const LINES = 300;
/** Starts in flight at once (a person's fleet grows a few at a time; 200 at once only queues). */
const STARTING = 8;

const MB = 1024 * 1024;
const round = (x: number, d = 2) => Number(x.toFixed(d));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

async function until(what: string, ok: () => Promise<boolean> | boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(200);
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
    execArgv: ['--expose-gc'],
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
/** The gateway's RSS from /proc (after full collections in it) and its JS heap with buffers. */
async function memoryOf(g: GatewayProcess): Promise<Memory> {
  const m = await g.call<{ heapUsed: number; external: number }>('memory');
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
  await until('every first turn', runsDone(g, keys, 1), 300_000);
  return keys;
}

interface Measured {
  memory: { none: Memory; one: Memory; idle: Memory; streaming: Memory };
  agents: { live: number; rss: number };
  cpu: { seconds: number; wall: number };
  load: { start: number; end: number };
  notes: PageNotes;
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
  await until('the open session half-way', async () => (await lastShown(page)) >= LINES / 2, 120_000);
  const streaming = await memoryOf(g);
  const agents = agentProcesses(token);
  await until('every streaming turn', runsDone(g, keys, 2), 180_000);
  return {
    streaming,
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
  await watchLiveLines(page);
  const streamed = await stream(g, page, keys, token);
  const message = page.locator('[data-testid="transcript-message"][data-role="assistant"] .text').last();
  const landedText = async () => (await message.textContent()) ?? '';
  await until(
    'the landed turn in the page',
    async () => (await landedText()).includes(`seq ${LINES} `),
    30_000,
  );
  return {
    memory: { none, one, idle, streaming: streamed.streaming },
    agents: streamed.agents,
    cpu: streamed.cpu,
    load: streamed.load,
    notes: await pageNotes(page),
    landed: sequenceFault(await landedText(), LINES),
    stored: await g.call<string[][]>('transcripts', { keys }),
  };
}

function figuresOf(m: Measured): Record<string, string | number> {
  const lat = m.notes.lines.filter((l) => l.painted > 0).map((l) => l.painted - l.sent);
  lat.sort((a, b) => a - b);
  const faults = m.stored
    .map((texts, i) => ({
      i,
      fault: texts.length === 2 ? sequenceFault(texts[1]!, LINES) : `${texts.length} messages`,
    }))
    .filter((x) => x.fault);
  const per = (a: Memory, b: Memory, n: number) =>
    `${round((b.rss - a.rss) / n / MB)} / ${round((b.heap - a.heap) / n / MB)}`;
  const mem = m.memory;
  const perSession = (mem.streaming.rss - mem.none.rss) / SESSIONS;
  const p95 = pct(lat, 0.95);
  const intact =
    faults.length === 0 && m.notes.disorder.length === 0 && m.landed === '' && lat.length === LINES;
  return {
    'live ACP sessions (stand-in agent processes) / updates per session per second': `${SESSIONS} / ${1000 / EVERY_MS}`,
    'lines streamed per session / in all': `${LINES} / ${(LINES * SESSIONS).toLocaleString('en-US')}`,
    'update → screen in the open session, p50 / p95 / max ms (goal p95 ≤ 100)': `${pct(lat, 0.5)} / ${p95} / ${lat.at(-1)}`,
    '  of it agent send → in the DOM, p50 / p95 ms': (() => {
      const d = m.notes.lines.map((l) => l.committed - l.sent).sort((a, b) => a - b);
      return `${pct(d, 0.5)} / ${pct(d, 0.95)}`;
    })(),
    'lines painted in the open session, in order': `${lat.length} of ${LINES}${m.notes.disorder.length ? ` (${m.notes.disorder.slice(0, 3).join('; ')})` : ''}`,
    "the open session's landed message in the page": m.landed || `lines 1–${LINES}, in order`,
    'stored transcripts with every line once, in order': `${SESSIONS - faults.length} of ${SESSIONS}${faults.length ? ` (session ${faults[0]!.i}: ${faults[0]!.fault})` : ''}`,
    'gateway RSS / JS heap, no session, MB': `${round(mem.none.rss / MB, 1)} / ${round(mem.none.heap / MB, 1)}`,
    [`gateway RSS / JS heap, ${SESSIONS} sessions streaming, MB`]: `${round(mem.streaming.rss / MB, 1)} / ${round(mem.streaming.heap / MB, 1)}`,
    [`gateway memory per live session, 0 → ${SESSIONS} streaming, RSS / heap MB (goal ≤ 1)`]: per(
      mem.none,
      mem.streaming,
      SESSIONS,
    ),
    [`  1 → ${SESSIONS} streaming (without what the first agent loads), RSS / heap MB`]: per(
      mem.one,
      mem.streaming,
      SESSIONS - 1,
    ),
    [`  0 → ${SESSIONS} idle between turns, RSS / heap MB`]: per(mem.none, mem.idle, SESSIONS),
    "agent processes while streaming / their RSS in all, MB (not the gateway's)": `${m.agents.live} / ${round(m.agents.rss / MB, 0)}`,
    [`gateway CPU while the ${SESSIONS} streamed, % of one core`]: round(
      (m.cpu.seconds / m.cpu.wall) * 100,
      1,
    ),
    "machine: cores / load average (1 min) at the stream's start / end": `${os.availableParallelism()} / ${round(m.load.start)} / ${round(m.load.end)}`,
    'goals met': p95 <= 100 && intact && perSession <= MB ? 'yes' : 'NO',
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
