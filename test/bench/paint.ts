// The fleet's first paint in browser mode, measured from navigation: Chromium is started first
// (its own start-up, half a second or more on a busy machine, is not the app's and is reported
// apart), then page.goto → the app's data-ready marker and a given session row painted (two
// animation frames later). "Cold" is the first load in a fresh browser profile; "warm" the median
// of three reloads (the bundle cached, the snapshot read and rendered again).
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import fs from 'node:fs';
import { CHROMIUM_ARGS, row, tmpDir } from '../e2e/helpers';

export interface PaintFigures {
  launchMs: number;
  coldMs: number;
  warmMs: number;
}

async function painted(page: Page, url: string, sessionKey: string): Promise<number> {
  await page.goto('about:blank');
  const t0 = performance.now();
  await page.goto(url);
  await page.locator('[data-testid="app"][data-ready="true"]').waitFor();
  await row(page, sessionKey).waitFor();
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  return performance.now() - t0;
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
    const coldMs = await painted(page, url, sessionKey);
    const warm: number[] = [];
    for (let i = 0; i < 3; i++) warm.push(await painted(page, url, sessionKey));
    warm.sort((a, b) => a - b);
    return { launchMs, coldMs, warmMs: warm[1]! };
  } finally {
    await context?.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}
