// Screenshot comparison for the visual check (issue 25.8): a page's PNG against a committed
// baseline, pixel by pixel. A pixel differs when one of its channels differs by more than
// CHANNEL_TOLERANCE (anti-aliasing noise); a screen differs when more than MAX_DIFF_RATIO of its
// pixels do (1 in 10,000: about 130 pixels at 1440×900, less than one changed word). Headless
// Chromium here renders the same page to the same pixels (system fonts, no GPU): two runs differed
// in no pixel at all, so the tolerance absorbs only sub-pixel noise, never a changed label or line.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ROOT } from './helpers';

interface Png {
  width: number;
  height: number;
  data: Buffer;
}
// pngjs as bundled by playwright-core (the same decoder Playwright's own screenshot comparison uses).
const { PNG } = createRequire(import.meta.url)('playwright-core/lib/utilsBundle') as {
  PNG: { sync: { read(b: Buffer): Png; write(p: Png): Buffer } };
};

export const BASELINES = path.join(ROOT, 'test/e2e/baselines');
const DIFFS = path.join(ROOT, 'test-results/visual');
export const CHANNEL_TOLERANCE = 24;
export const MAX_DIFF_RATIO = 0.0001;

export function readPng(b: Buffer): Png {
  return PNG.sync.read(b);
}

/** Pixels of `actual` that differ from `expected` (sizes must match); the diff image marks them red. */
export function diffPixels(actual: Png, expected: Png): { count: number; image: Png } {
  const image = { width: actual.width, height: actual.height, data: Buffer.from(actual.data) };
  let count = 0;
  for (let i = 0; i < actual.data.length; i += 4) {
    let over = false;
    for (let c = 0; c < 3; c++)
      if (Math.abs(actual.data[i + c]! - expected.data[i + c]!) > CHANNEL_TOLERANCE) over = true;
    if (!over) continue;
    count++;
    image.data.set([255, 0, 0, 255], i);
  }
  return { count, image };
}

/**
 * Compares a screenshot with its baseline; '' when they match, else what differs (and the diff
 * image's path). SIGHTLINE_UPDATE_BASELINES=1 writes the baseline instead. A missing baseline
 * fails: the check cannot pass without one.
 */
export function compareWithBaseline(name: string, shot: Buffer): string {
  const file = path.join(BASELINES, `${name}.png`);
  if (process.env.SIGHTLINE_UPDATE_BASELINES) {
    fs.mkdirSync(BASELINES, { recursive: true });
    fs.writeFileSync(file, shot);
    return '';
  }
  if (!fs.existsSync(file))
    return `${name}: no baseline at ${path.relative(ROOT, file)} (SIGHTLINE_UPDATE_BASELINES=1 writes it)`;
  const actual = PNG.sync.read(shot);
  const expected = PNG.sync.read(fs.readFileSync(file));
  if (actual.width !== expected.width || actual.height !== expected.height)
    return `${name}: ${actual.width}×${actual.height}, baseline ${expected.width}×${expected.height}`;
  const { count, image } = diffPixels(actual, expected);
  if (count <= MAX_DIFF_RATIO * actual.width * actual.height) return '';
  fs.mkdirSync(DIFFS, { recursive: true });
  const out = path.join(DIFFS, `${name}.diff.png`);
  fs.writeFileSync(out, PNG.sync.write(image));
  fs.writeFileSync(path.join(DIFFS, `${name}.actual.png`), shot);
  return `${name}: ${count} pixels differ (see ${path.relative(ROOT, out)})`;
}
