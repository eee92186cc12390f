// Load benchmark (issue 7 item 4): 1,000 target sessions, 3 watchers each, 200 notify-eligible
// human_direct_message events/s on random targets plus 20 drains/s by random watchers, for 60 s,
// through the gateway's contract with the browser-mode UI open on one target's timeline.
//
// Checked against the durable cursors after the run: every cursor with M > L has exactly one
// queued notice for its pair, naming L; every queued session-state notice belongs to a pending
// cursor; no queue ever holds more than 20 entries; heapUsed after GC is flat across the run.
// Measured as well: UI frame intervals and event-to-screen latency.
//
// The scenario is shared with the bounded CI variant, test/reliability/load.test.ts.
import v8 from 'node:v8';
import vm from 'node:vm';
import type { Gateway } from '../../electron/gateway/index';
import { decodeNoticeContextKey } from '../../shared/session-keys';
import { openBrowser, row, type Browser } from '../e2e/helpers';
import {
  latencies,
  paced,
  round,
  seenInTimeline,
  sleep,
  startFrameSampling,
  startHarness,
  stopFrameSampling,
  watchTimeline,
  type FrameFigures,
  type Harness,
} from './ui.bench';
import { contextKeyOf, noticeText } from '../helpers/spec';

export const TARGETS = 1_000;
export const WATCHERS_PER_TARGET = 3;
/** 150 watcher sessions, each watching exactly 20 targets: a full queue holds every pair once. */
export const WATCHERS = 150;
export const RATE = 200;
export const DRAIN_EVERY = 10; // one drain per 10 events: 20 drains/s
export const QUEUE_LIMIT = 20;

/** A small deterministic PRNG (mulberry32), so that runs are reproducible. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** heapUsed after a full GC (gc exposed at run time: no --expose-gc flag needed). */
export function heapAfterGc(): number {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

export interface Scenario {
  h: Harness;
  gw: Gateway;
  targets: string[];
  watchers: string[];
  /** The target whose timeline is open in the page. */
  openTarget: string;
  browser: Browser & { errors: string[] };
  counters: { events: number; drains: number; queued: number; drained: number; maxQueue: number };
  close(): Promise<void>;
}

export async function startScenario(): Promise<Scenario> {
  const h = await startHarness();
  const { gw } = h;
  const targets = Array.from({ length: TARGETS }, (_, i) => `agent:main:subagent:t${i}`);
  const watchers = Array.from({ length: WATCHERS }, (_, i) => `agent:main:watcher-${i}`);
  gw.db.transaction(() => {
    for (const w of watchers) gw.sessions.create({ key: w, label: w.slice(11) });
    targets.forEach((t, i) => {
      gw.sessions.create({ key: t, parentKey: watchers[i % WATCHERS]! });
      // Watchers of target i: 3i, 3i+1, 3i+2 (mod 150); each watcher gets exactly 20 targets.
      for (let j = 0; j < WATCHERS_PER_TARGET; j++) {
        if (!gw.state.registerWatch(watchers[(i * WATCHERS_PER_TARGET + j) % WATCHERS]!, t)) {
          throw new Error(`registerWatch failed for ${t}`);
        }
      }
    });
  })();
  const counters = { events: 0, drains: 0, queued: 0, drained: 0, maxQueue: 0 };
  const off = gw.events.on((e) => {
    if (e.type === 'notice:queued') counters.queued++;
    if (e.type === 'notice:drained') counters.drained += e.entries.length;
  });
  const openTarget = targets[0]!;
  const browser = await openBrowser(h.server.url);
  await row(browser.page, openTarget).click();
  await browser.page.locator('[data-testid="tab-timeline"]').click();
  await browser.page.locator('[data-testid="timeline"][data-ready="true"]').waitFor();
  return {
    h,
    gw,
    targets,
    watchers,
    openTarget,
    browser,
    counters,
    async close() {
      off();
      await browser.close();
      await h.close();
    },
  };
}

/**
 * `seconds` of load at 200 events/s. `probe(i)` may take over an event (it then records it itself
 * on the open target and returns true).
 */
export async function runLoad(
  s: Scenario,
  seconds: number,
  random: () => number,
  probe?: (i: number) => boolean,
): Promise<number> {
  const { gw, targets, watchers, counters } = s;
  const watchersOf = (i: number) =>
    Array.from(
      { length: WATCHERS_PER_TARGET },
      (_, j) => watchers[(i * WATCHERS_PER_TARGET + j) % WATCHERS]!,
    );
  return paced(RATE, seconds, (i) => {
    let t: number;
    if (probe?.(i)) t = 0;
    else {
      t = Math.floor(random() * targets.length);
      const ev = gw.state.record({
        sessionKey: targets[t]!,
        kind: 'human_direct_message',
        actorType: 'human',
        actorId: 'person:load',
        summary: 'human message via desktop',
        payload: { channel: 'desktop' },
      });
      if (!ev) throw new Error('append failed');
    }
    counters.events++;
    for (const w of watchersOf(t)) counters.maxQueue = Math.max(counters.maxQueue, gw.notices.peek(w).length);
    if (i % DRAIN_EVERY === DRAIN_EVERY - 1) {
      gw.notices.drain(watchers[Math.floor(random() * watchers.length)]!);
      counters.drains++;
    }
  });
}

export interface CheckResult {
  cursors: number;
  pending: number;
  /** Pending cursors whose one notice was found with the right text. */
  checked: number;
  lost: number;
  duplicated: number;
  /** Queued session-state notices without a pending cursor, or with a text not naming L. */
  stray: number;
  wrongText: number;
  maxQueue: number;
}

/** The notices in the queues against the durable cursors. */
export function checkNotices(gw: Gateway): CheckResult {
  const rows = gw.db
    .prepare('SELECT watcher_key, target_key, last_seen, notified, material FROM session_watch_cursors')
    .all() as {
    watcher_key: string;
    target_key: string;
    last_seen: number;
    notified: number;
    material: number;
  }[];
  const queues = new Map(gw.notices.all().map((q) => [q.sessionKey, q.entries]));
  const r: CheckResult = {
    cursors: rows.length,
    pending: 0,
    checked: 0,
    lost: 0,
    duplicated: 0,
    stray: 0,
    wrongText: 0,
    maxQueue: Math.max(0, ...[...queues.values()].map((q) => q.length)),
  };
  const pendingPairs = new Map<string, number>();
  for (const c of rows) {
    const ctx = contextKeyOf(c.target_key);
    const mine = (queues.get(c.watcher_key) ?? []).filter((e) => e.contextKey === ctx);
    if (c.material > c.last_seen) {
      r.pending++;
      pendingPairs.set(`${c.watcher_key}\n${c.target_key}`, c.last_seen);
      if (mine.length === 0) r.lost++;
      else if (mine.length > 1) r.duplicated++;
      else if (mine[0]!.text !== noticeText(c.target_key, c.last_seen)) r.wrongText++;
      else r.checked++;
    }
  }
  for (const [watcher, entries] of queues) {
    for (const e of entries) {
      const target = decodeNoticeContextKey(e.contextKey);
      if (!target) continue;
      const l = pendingPairs.get(`${watcher}\n${target}`);
      if (l === undefined || e.text !== noticeText(target, l)) r.stray++;
    }
  }
  return r;
}

const MB = 1024 * 1024;
const SECONDS = 60;
const WARMUP = 10;

export async function run(): Promise<Record<string, string | number>> {
  const figures: Record<string, string | number> = {};
  const s = await startScenario();
  try {
    const random = prng(7);
    await runLoad(s, WARMUP, random);
    const warm = checkNotices(s.gw);
    const heap0 = heapAfterGc();
    const rss0 = process.memoryUsage().rss;

    const { page } = s.browser;
    await watchTimeline(page, 'probe ');
    await startFrameSampling(page);
    const sent = new Map<string, number>();
    let n = 0;
    const secs = await runLoad(s, SECONDS, random, (i) => {
      if (i % 100 !== 50) return false;
      const summary = `probe ${n++}`;
      sent.set(summary, Date.now());
      s.gw.state.record({
        sessionKey: s.openTarget,
        kind: 'human_direct_message',
        actorType: 'human',
        summary,
      });
      return true;
    });
    await sleep(500);
    const frames: FrameFigures = await stopFrameSampling(page);
    const lat = latencies(sent, await seenInTimeline(page));
    const end = checkNotices(s.gw);
    const heap1 = heapAfterGc();
    const rss1 = process.memoryUsage().rss;

    figures['sessions (1,000 targets + 150 watchers), cursors'] =
      `${s.gw.sessions.list().length}, ${end.cursors}`;
    figures['run, s (after a 10 s warm-up)'] = round(secs, 1);
    figures['events recorded (warm-up + run)'] = s.counters.events;
    figures['achieved rate, events/s'] = round((s.counters.events - WARMUP * RATE) / secs);
    figures['drains (warm-up + run)'] = s.counters.drains;
    figures['notices queued / drained'] = `${s.counters.queued} / ${s.counters.drained}`;
    figures['pending cursors checked after warm-up / run'] = `${warm.checked} / ${end.checked}`;
    figures['lost / duplicated / stray / wrong text'] =
      `${warm.lost + end.lost} / ${warm.duplicated + end.duplicated} / ${warm.stray + end.stray} / ${warm.wrongText + end.wrongText}`;
    figures['longest queue seen (limit 20)'] = s.counters.maxQueue;
    figures['heapUsed after GC before → after the run, MB'] = `${round(heap0 / MB)} → ${round(heap1 / MB)}`;
    figures['RSS before → after the run, MB'] = `${round(rss0 / MB)} → ${round(rss1 / MB)}`;
    figures['UI frame interval p50 / p95 / max, ms'] = `${frames.p50} / ${frames.p95} / ${frames.max}`;
    figures['UI long tasks (> 50 ms), longest ms'] = `${frames.longTasks}, ${frames.longTaskMaxMs}`;
    figures['event-to-screen latency p50 / p95 / max, ms'] = `${lat.p50} / ${lat.p95} / ${lat.max}`;
    figures['event-to-screen probes (missing)'] = `${sent.size} (${lat.missing})`;
    const ok =
      warm.lost + end.lost + warm.duplicated + end.duplicated + warm.stray + end.stray === 0 &&
      warm.wrongText + end.wrongText === 0 &&
      s.counters.maxQueue <= QUEUE_LIMIT &&
      heap1 - heap0 < 10 * MB;
    figures['no loss, no duplicates, bounded queues, flat heap'] = ok ? 'met' : 'MISSED';
    if (s.browser.errors.length) figures['page errors'] = s.browser.errors.slice(0, 3).join(' | ');
  } finally {
    await s.close();
  }
  for (const [k, v] of Object.entries(figures)) console.log(`  ${k}: ${v}`);
  return figures;
}
