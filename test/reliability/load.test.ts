// Reliability, part 3: load (issue 7 item 4), the bounded CI variant of test/bench/load.bench.ts.
// 1,000 target sessions with 3 watchers each (150 watcher sessions × 20 targets), 200
// notify-eligible human_direct_message events/s on random targets and 20 drains/s by random
// watchers, through the gateway with the browser-mode UI open on one target's timeline: 3 s of
// warm-up, then 10 s (60 s with SIGHTLINE_LONG=1). After each phase the queues are checked
// against the durable cursors: nothing lost, duplicated or stray, every notice naming L; no queue
// above 20 entries at any time; heapUsed after GC flat across the measured phase.
// UI frame times and event-to-screen latency are measured by the bench only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkNotices,
  DRAIN_EVERY,
  heapAfterGc,
  prng,
  QUEUE_LIMIT,
  RATE,
  runLoad,
  startScenario,
  TARGETS,
  WATCHERS,
  WATCHERS_PER_TARGET,
  type Scenario,
} from '../bench/load.bench';

const LONG = process.env.SIGHTLINE_LONG === '1';
const WARMUP = 3;
const SECONDS = LONG ? 60 : 10;
const MB = 1024 * 1024;

let s: Scenario;
beforeAll(async () => {
  s = await startScenario();
}, 150_000);
afterAll(async () => {
  await s?.close();
});

describe('load: 1,000 sessions × 3 watchers, 200 events/s with the UI open', () => {
  it(
    'loses and duplicates no notice, keeps queues bounded and the heap flat',
    async () => {
      const { gw } = s;
      expect(gw.sessions.list().length).toBe(TARGETS + WATCHERS + 1);
      const random = prng(11);

      await runLoad(s, WARMUP, random);
      const warm = checkNotices(gw);
      const heap0 = heapAfterGc();

      await runLoad(s, SECONDS, random);
      const end = checkNotices(gw);
      const heap1 = heapAfterGc();

      const events = RATE * (WARMUP + SECONDS);
      expect(s.counters.events).toBe(events);
      expect(s.counters.drains).toBe(events / DRAIN_EVERY);
      for (const r of [warm, end]) {
        expect(r.cursors).toBe(TARGETS * WATCHERS_PER_TARGET);
        expect(r.pending).toBeGreaterThan(0);
        expect({ lost: r.lost, duplicated: r.duplicated, stray: r.stray, wrongText: r.wrongText }).toEqual({
          lost: 0,
          duplicated: 0,
          stray: 0,
          wrongText: 0,
        });
        expect(r.checked).toBe(r.pending);
        expect(r.maxQueue).toBeLessThanOrEqual(QUEUE_LIMIT);
      }
      expect(s.counters.maxQueue).toBeLessThanOrEqual(QUEUE_LIMIT);
      // Every session-state notice ever queued was either drained or is still queued.
      const queuedNow = gw.notices.all().reduce((n, q) => n + q.entries.length, 0);
      expect(s.counters.drained + queuedNow).toBe(s.counters.queued);
      expect(heap1 - heap0).toBeLessThan(10 * MB);

      // The open timeline shows the target's newest event; the page logged no error.
      const version = gw.state.version(s.openTarget);
      expect(version).toBeGreaterThan(0);
      await expect
        .poll(() =>
          s.browser.page.locator('[data-testid="timeline-row"]').first().getAttribute('data-sequence'),
        )
        .toBe(String(version));
      expect(s.browser.errors).toEqual([]);

      console.log(
        `reliability: load events=${s.counters.events} drains=${s.counters.drains} ` +
          `notices-queued=${s.counters.queued} notices-checked=${warm.checked + end.checked} ` +
          `lost=${warm.lost + end.lost} duplicated=${warm.duplicated + end.duplicated} ` +
          `stray=${warm.stray + end.stray} max-queue=${s.counters.maxQueue} ` +
          `heap-delta-MB=${((heap1 - heap0) / MB).toFixed(1)}`,
      );
    },
    (WARMUP + SECONDS) * 1000 + 60_000,
  );
});
