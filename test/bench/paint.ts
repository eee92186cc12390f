// The fleet's first paint in browser mode, measured in the page by the browser's own clock:
// from the navigation's start (performance.timeOrigin) to two animation frames after the app's
// data-ready marker and a given session row are both in the DOM. A MutationObserver, installed
// before any page script runs, notices that moment; Playwright only reads the result afterwards.
// (Earlier figures were taken around Playwright's own waits, whose polling backs off 20, 50, 100,
// 100 ms between checks and so added up to 100 ms that the page did not spend.)
// Chromium is started first (its own start-up, half a second or more on a busy machine, is not the
// app's and is reported apart). "Cold" is the first navigation to the app in a fresh browser profile
// (a renderer process is started for it); "warm" the median of five reloads of the page, as a
// person presses Reload (the snapshot read and rendered again; the bundle is fetched again too, as
// the server marks every file no-store).
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import fs from 'node:fs';
import { CHROMIUM_ARGS, tmpDir } from '../e2e/helpers';

export interface PaintFigures {
  launchMs: number;
  coldMs: number;
  warmMs: number;
}

const PAINTED = 'bench:painted';

/** Runs in the page before its scripts (a string: tsx would wrap a function's name helpers in). */
const observer = (sessionKey: string) => `
  const rowSelector = '[data-testid="session-row"][data-session-key=' + JSON.stringify(${JSON.stringify(sessionKey)}) + ']';
  const mo = new MutationObserver(() => {
    if (!document.querySelector('[data-testid="app"][data-ready="true"]')) return;
    if (!document.querySelector(rowSelector)) return;
    mo.disconnect();
    requestAnimationFrame(() => requestAnimationFrame(() => performance.mark(${JSON.stringify(PAINTED)})));
  });
  mo.observe(document, { subtree: true, childList: true, attributes: true });
`;

async function painted(page: Page, load: () => Promise<unknown>): Promise<number> {
  await load();
  const handle = await page.waitForFunction(
    (name) => performance.getEntriesByName(name)[0]?.startTime,
    PAINTED,
    { polling: 50 },
  );
  return (await handle.jsonValue()) as number;
}

export async function measurePaint(url: string, sessionKey: string): Promise<PaintFigures> {
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
    const coldMs = await painted(page, () => page.goto(url));
    const warm: number[] = [];
    for (let i = 0; i < 5; i++) warm.push(await painted(page, () => page.reload()));
    warm.sort((a, b) => a - b);
    return { launchMs, coldMs, warmMs: warm[2]! };
  } finally {
    await context?.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}
