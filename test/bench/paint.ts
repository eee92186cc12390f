// The fleet's first paint in browser mode, measured in the page by the browser's own clock:
// from the navigation's start (performance.timeOrigin) to two animation frames after the app's
// data-ready marker and a given session row are both in the DOM. A MutationObserver, installed
// before any page script runs, notices that moment; Playwright only reads the result afterwards.
// (Earlier figures were taken around Playwright's own waits, whose polling backs off 20, 50, 100,
// 100 ms between checks and so added up to 100 ms that the page did not spend.)
// Chromium is started first (its own start-up, half a second or more on a busy machine, is not the
// app's and is reported apart). "Cold" is the first navigation to the app in a fresh browser profile
// (a renderer process is started for it): one cold load varies by ±80 ms on a quiet machine, so it
// is the median of COLD_LOADS, each in a new browser, with their range. "Warm" is the median of five
// reloads of the page, as a person presses Reload (the snapshot read and rendered again; the bundle
// is fetched again too, as the server marks every file no-store).
import { chromium, type BrowserContext, type CDPSession } from 'playwright-core';
import fs from 'node:fs';
import { CHROMIUM_ARGS, tmpDir } from '../e2e/helpers';

export interface PaintFigures {
  launchMs: number;
  /** Median of the cold loads, and their range. */
  coldMs: number;
  coldMinMs: number;
  coldMaxMs: number;
  warmMs: number;
}

const PAINTED = 'bench:painted';

/**
 * Runs in the page before its scripts (a string: tsx would wrap a function's name helpers in).
 * It also leaves a promise of the mark's time on the window, which `painted` awaits over CDP.
 */
const observer = (sessionKey: string) => `
  const rowSelector = '[data-testid="session-row"][data-session-key=' + JSON.stringify(${JSON.stringify(sessionKey)}) + ']';
  window.__benchPainted = new Promise((resolve) => {
    const mo = new MutationObserver(() => {
      if (!document.querySelector('[data-testid="app"][data-ready="true"]')) return;
      if (!document.querySelector(rowSelector)) return;
      mo.disconnect();
      requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.mark(${JSON.stringify(PAINTED)}).startTime)));
    });
    mo.observe(document, { subtree: true, childList: true, attributes: true });
  });
`;

/**
 * Loads the page and reads the mark's time. The wait is one CDP evaluation of a one-line
 * expression: Playwright's waitForFunction would first compile its injected script (about 20 ms
 * of the page's main thread, in the middle of the load it measures).
 */
async function painted(cdp: CDPSession, load: () => Promise<unknown>): Promise<number> {
  await load();
  const { result, exceptionDetails } = await cdp.send('Runtime.evaluate', {
    expression: 'window.__benchPainted',
    awaitPromise: true,
    returnByValue: true,
  });
  if (exceptionDetails || typeof result.value !== 'number') {
    throw new Error(`paint.ts: no paint mark (${exceptionDetails?.text ?? typeof result.value})`);
  }
  return result.value;
}

/** Cold first loads per fleet size: a single cold load varies by ±80 ms on a quiet machine. */
export const COLD_LOADS = Number(process.env.SIGHTLINE_COLD_LOADS ?? 5);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** One fresh browser profile: its cold load, then (if asked) five reloads. */
async function onePaint(url: string, sessionKey: string, reloads: number) {
  const profile = tmpDir('sightline-bench-chromium-');
  const t0 = performance.now();
  let context: BrowserContext | undefined;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      args: CHROMIUM_ARGS,
      viewport: { width: 1400, height: 860 },
    });
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto('about:blank');
    const launchMs = performance.now() - t0;
    await page.addInitScript(observer(sessionKey));
    const cdp = await context.newCDPSession(page);
    const coldMs = await painted(cdp, () => page.goto(url));
    const warm: number[] = [];
    for (let i = 0; i < reloads; i++) warm.push(await painted(cdp, () => page.reload()));
    return { launchMs, coldMs, warm };
  } finally {
    await context?.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

/** COLD_LOADS cold loads, each in a fresh browser (median and range), and five warm reloads. */
export async function measurePaint(url: string, sessionKey: string): Promise<PaintFigures> {
  const runs = [];
  for (let i = 0; i < COLD_LOADS; i++) runs.push(await onePaint(url, sessionKey, i === 0 ? 5 : 0));
  const cold = runs.map((r) => r.coldMs);
  return {
    launchMs: median(runs.map((r) => r.launchMs)),
    coldMs: median(cold),
    coldMinMs: Math.min(...cold),
    coldMaxMs: Math.max(...cold),
    warmMs: median(runs[0]!.warm),
  };
}
