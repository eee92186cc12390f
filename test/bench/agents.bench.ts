// Real agents benchmark (issue 28): ten real Claude Code agents (claude-code-acp, pinned in
// test/tools/install.ts) stream their answers from the Anthropic stand-in at the same time, and a
// browser-mode WebSocket client — the renderer's transport — receives the pushes.
//   * Added latency, agent update → push: each streamed piece carries a marker «n»; a relay in
//     front of each agent notes when the line carrying it left the agent for Sightline, and the
//     client notes when the push carrying it arrived. p50 / p95 / max over every marker. Goal:
//     p95 ≤ 16 ms. Split: the way to Sightline (pipe, scheduler: the machine's), Sightline reading
//     it to its event (ACP parse, live output), the event to the push received (push bridge,
//     JSON, WebSocket, the client); with the event-loop delay of this process and the machine's
//     load, so what the product adds and what the machine adds show apart.
//   * The same markers to the screen: a Chromium page of the app (browser mode) has the first
//     session's transcript open and notes, itself, when each of its markers arrived in a push,
//     reached the DOM and was painted (acp-live.page.ts). Agent update → painted p50 / p95 / max,
//     split at the push received: the rest is the page's (the next frame applies the push, React
//     commits, the frame is drawn), which waits for the display's frame whatever the source. The
//     stand-in's pieces ("word «n» ") make one long paragraph, and a running step shows whole
//     lines, or whole words once a paragraph is long (shared/activity.ts settledText): the first
//     pieces of a paragraph wait on screen for that, on purpose, and are in the page's part.
//   * Memory Sightline adds per live agent session: the gateway process's RSS and heap (after a
//     full GC) with ten agent sessions live and idle, minus before they started, divided by ten.
//     The agents' own processes are not in it. Goal: ≤ 2 MB.
import childProcess, { type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import WebSocket from 'ws';
import { createGateway } from '../../electron/gateway/index';
import { startWebServer } from '../../electron/web/server';
import { ensureRenderer, openBrowser, openSession, RENDERER_DIR, type Browser } from '../e2e/helpers';
import type { PushBatch } from '../../shared/ipc/types';
import { startAnthropicStandIn } from '../helpers/standin';
import { MAIN } from '../helpers/spec';
import { ACP_AGENTS, ensureTool } from '../tools/install';
import { instrument, pageNotes, watchLiveLines, type Markers } from './acp-live.page';
import type { BenchResult } from './run';

const AGENTS = 10;
const PIECES = 100;
const EVERY_MS = 30;
/** The stand-in's pieces are «n», one counter shared by the ten agents. */
const MARKERS: Markers = { marker: '«(\\d+)»', line: '«(\\d+)»', consecutive: false };

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const memory = () => {
  for (let i = 0; i < 3; i++) gc();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed + m.external + m.arrayBuffers };
};
const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 100) / 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
const now = () => performance.timeOrigin + performance.now();

/**
 * When each marker's bytes reached this process from an agent's stdout: a listener added to every
 * child the gateway spawns (before the gateway's own), so the split between the way to Sightline
 * (pipe, scheduler) and Sightline's own part (parse, live output, push bridge, WebSocket) shows.
 */
function watchArrivals(arrived: Map<string, number>): () => void {
  const spawn = childProcess.spawn;
  childProcess.spawn = ((...args: Parameters<typeof spawn>) => {
    const child = spawn(...args) as ChildProcess;
    child.stdout?.on('data', (data: Buffer) => {
      const at = now();
      for (const found of data.toString('utf8').match(/«\d+»/g) ?? []) arrived.set(found.slice(1, -1), at);
    });
    return child;
  }) as typeof spawn;
  syncBuiltinESMExports();
  return () => {
    childProcess.spawn = spawn;
    syncBuiltinESMExports();
  };
}

async function until(what: string, ok: () => boolean, ms = 180_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

export async function run(): Promise<BenchResult> {
  const spec = ACP_AGENTS.find((a) => a.id === 'claude-code-acp')!;
  const bin = fs.realpathSync(await ensureTool(spec, spec.pinned));
  await ensureRenderer();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-agents-'));
  const marksFile = path.join(dir, 'marks');
  let marker = 0;
  const piece = () => `word «${++marker}» `;
  const model = await startAnthropicStandIn({
    // Every turn streams its answer: a hundred pieces, one each 30 ms (about 3 s).
    script: Array.from({ length: 4 * AGENTS }, () => () => ({
      paced: true as const,
      chunks: Array.from({ length: PIECES }, piece),
      everyMs: EVERY_MS,
    })),
  });
  const gw = createGateway({ dataDir: path.join(dir, 'data'), autoStart: false });
  const server = await startWebServer({ gateway: gw, rendererDir: RENDERER_DIR, app: { version: 'bench' } });
  let browser: (Browser & { errors: string[] }) | undefined;
  const received = new Map<string, number>();
  const arrived = new Map<string, number>();
  const emitted = new Map<string, number>();
  gw.events.on((e) => {
    if (e.type !== 'run:delta') return;
    const at = now();
    for (const found of e.text.match(/«\d+»/g) ?? []) emitted.set(found.slice(1, -1), at);
  });
  const unwatch = watchArrivals(arrived);
  const origin = new URL(server.url).origin;
  const ws = new WebSocket(`${origin.replace('http', 'ws')}/ws?token=${server.token}`, { origin });
  ws.on('message', (data: Buffer) => {
    const at = now();
    const m = JSON.parse(data.toString()) as { type: string; batch?: PushBatch };
    if (m.type !== 'push') return;
    for (const e of m.batch!.events)
      if (e.type === 'run:delta')
        for (const found of e.text.match(/«\d+»/g) ?? []) received.set(found.slice(1, -1), at);
  });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const figures: Record<string, string | number> = {};
  try {
    gw.acp.profiles.save({
      id: 'claude',
      name: 'Claude Code',
      command: process.execPath,
      args: [path.join(import.meta.dirname, 'agents', 'relay.mjs'), process.execPath, bin],
      env: {
        HOME: path.join(dir, 'home'),
        IS_SANDBOX: '1',
        ANTHROPIC_BASE_URL: model.url,
        ANTHROPIC_API_KEY: 'sk-ant-standin',
        DISABLE_TELEMETRY: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        SIGHTLINE_BENCH_MARKS: marksFile,
      },
    });
    const start = async (i: number) => {
      const cwd = path.join(dir, `work${i}`);
      fs.mkdirSync(cwd);
      const label = `bench agent ${i}`;
      return (
        await gw.sessions.start({ acpProfileId: 'claude', cwd, message: 'Warm up.', parentKey: MAIN, label })
      ).key;
    };
    // Memory per session as a slope: five live agent sessions, then ten, each measured after a
    // full GC once their first turn is over; what any first session loads is not counted.
    const keys: string[] = [];
    const settled = (n: number) => () =>
      keys.every((k) => {
        const runs = gw.runs.list(k);
        return runs.length >= n && runs.every((r) => r.status === 'idle');
      });
    const measured = [];
    for (const half of [0, 1]) {
      for (let i = 0; i < AGENTS / 2; i++) keys.push(await start(half * 100 + i));
      await until('the first turns', settled(1));
      await gw.runtime.idle();
      model.requests.length = 0;
      model.turns.length = 0;
      await sleep(500);
      measured.push(memory());
    }
    const [five, ten] = measured as [ReturnType<typeof memory>, ReturnType<typeof memory>];
    const perSession = (ten.rss - five.rss) / (AGENTS / 2);
    figures['live agent sessions'] = AGENTS;
    figures['memory Sightline adds per live agent session (RSS, 5 → 10 sessions), MB (goal ≤ 2)'] =
      mb(perSession);
    figures['  of it JS heap and buffers, MB'] = mb((ten.heap - five.heap) / (AGENTS / 2));

    // The page: the first session's transcript open, its markers noted as they are painted.
    browser = await openBrowser(server.url);
    await instrument(browser.page);
    const filter = browser.page.locator('[data-testid="fleet-filter"]');
    await filter.fill('bench agent 0');
    await openSession(browser.page, keys[0]!);
    await filter.fill('');
    await watchLiveLines(browser.page, keys[0]!, MARKERS);

    // Now all ten stream at once, measured marker by marker.
    fs.writeFileSync(marksFile, '');
    const first = marker;
    const load = os.loadavg()[0]!;
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    const streamedFrom = Date.now();
    for (const key of keys) await gw.human.send(key, 'Stream your answer.');
    await until('the streamed turns', settled(2));
    loop.disable();
    await sleep(200);
    const sent = new Map(
      fs
        .readFileSync(marksFile, 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split(' ') as [string, string]),
    );
    const latencies: number[] = [];
    const toSightline: number[] = [];
    const inSightline: number[] = [];
    const toEvent: number[] = [];
    const toClient: number[] = [];
    for (let n = first + 1; n <= marker; n++) {
      const s = sent.get(String(n));
      const a = arrived.get(String(n));
      const e = emitted.get(String(n));
      const r = received.get(String(n));
      if (s === undefined || a === undefined || e === undefined || r === undefined) continue;
      latencies.push(r - Number(s));
      toSightline.push(a - Number(s));
      inSightline.push(r - a);
      toEvent.push(e - a);
      toClient.push(r - e);
    }
    for (const list of [latencies, toSightline, inSightline, toEvent, toClient]) list.sort((a, b) => a - b);
    const round = (x: number) => Math.round(x * 100) / 100;
    const p = (list: number[]) =>
      `${round(pct(list, 0.5))} / ${round(pct(list, 0.95))} / ${round(list.at(-1) ?? NaN)}`;
    figures['agents streaming at once / pieces each'] = `${AGENTS} / ${PIECES}`;
    figures['markers streamed / seen at both ends'] = `${marker - first} / ${latencies.length}`;
    figures['added latency, agent update → push received, p50 / p95 / max ms (goal p95 ≤ 16)'] = p(latencies);
    figures['  of it: agent stdout → Sightline reads it (pipe, scheduler), ms'] = p(toSightline);
    figures['  of it: Sightline reads it → push received (parse, live output, push bridge, WebSocket), ms'] =
      p(inSightline);
    figures['    Sightline reads it → its event (ACP parse, live output), ms'] = p(toEvent);
    figures['    its event → push received (push bridge, JSON, WebSocket, client), ms'] = p(toClient);
    const ms = (ns: number) => round(ns / 1e6);
    figures['event-loop delay of the process (gateway, stand-in, client), p50 / p95 / max ms'] =
      `${ms(loop.percentile(50))} / ${ms(loop.percentile(95))} / ${ms(loop.max)}`;
    figures['machine: cores / load average (1 min) when streaming began'] =
      `${os.availableParallelism()} / ${round(load)}`;
    const notes = await pageNotes(browser.page);
    for (const [k, v] of Object.entries(screenFigures(notes.lines, sent))) figures[k] = v;
    const long = notes.longTasks.filter((t) => t.at >= streamedFrom);
    figures["  the page's long tasks (> 50 ms) while streaming: count, longest ms"] =
      `${long.length}, ${Math.round(Math.max(0, ...long.map((t) => t.ms)))}`;
    if (browser.errors.length) figures['page errors'] = browser.errors.slice(0, 3).join(' | ');
    figures['goals met'] = pct(latencies, 0.95) <= 16 && perSession <= 2 * 1024 * 1024 ? 'yes' : 'NO';
  } finally {
    unwatch();
    await browser?.close();
    ws.close();
    await server.close();
    gw.close();
    await model.close();
    await sleep(500);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  for (const [k, v] of Object.entries(figures)) console.log(`  ${k}: ${v}`);
  return { figures };
}

/** The open session's markers on screen: update → painted, and the page's own part of it. */
function screenFigures(
  lines: { seq: number; arrived: number; painted: number }[],
  sent: Map<string, string>,
): Record<string, string> {
  const total: number[] = [];
  const page: number[] = [];
  for (const l of lines) {
    const s = sent.get(String(l.seq));
    if (s === undefined || !l.arrived || !l.painted) continue;
    total.push(l.painted - Number(s));
    page.push(l.painted - l.arrived);
  }
  for (const list of [total, page]) list.sort((a, b) => a - b);
  const p = (list: number[]) =>
    `${Math.round(pct(list, 0.5))} / ${Math.round(pct(list, 0.95))} / ${Math.round(list.at(-1) ?? NaN)}`;
  return {
    'the open session in a Chromium page: markers on screen / timed (streamed while watched)': `${lines.length} / ${total.length}`,
    '  agent update → painted on screen, p50 / p95 / max ms': p(total),
    '  of it: the push in the page → painted (the next frame applies it, React commits, the frame is drawn), ms':
      p(page),
  };
}
