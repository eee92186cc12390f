// Live output benchmark (issue 17.1): 100 sessions streaming 20 tokens/s each, with the fleet
// open in headless Chromium and one of the streaming sessions' transcripts on screen. The tokens
// come from real turns (the scripted provider streaming through onDelta → run:delta → the push
// bridge → the page), not from synthetic events. Targets: frame interval p95 ≤ 20 ms and no long
// task over 50 ms. A 1,000-session fleet around them (900 idle) keeps the list virtualised.
import type { Gateway } from '../../electron/gateway/index';
import { openBrowser, row, type Browser } from '../e2e/helpers';
import type { BenchResult } from './run';
import { round, sleep, startFrameSampling, startHarness, stopFrameSampling } from './ui.bench';

const STREAMING = 100;
const TOKENS_PER_SECOND = 20;
const FLEET = 1_000;
const MEASURE_S = 10;
/** Each streaming turn outlasts the measurement: warm-up + 10 s + slack. */
const STEPS = 20;

function createFleet(gw: Gateway): string[] {
  gw.agents.save({
    id: 'stream',
    name: 'Streaming',
    provider: 'scripted',
    providerSettings: { stepMs: '1000', steps: String(STEPS), tokensPerStep: String(TOKENS_PER_SECOND) },
    heartbeatSeconds: 0,
  });
  const streaming: string[] = [];
  gw.db.transaction(() => {
    for (let i = 0; i < STREAMING; i++)
      streaming.push(gw.sessions.create({ key: `agent:stream:subagent:w${i}`, label: `worker ${i}` }).key);
    for (let i = streaming.length; i < FLEET; i++)
      gw.sessions.create({ key: `agent:stream:subagent:idle${i}`, label: `idle ${i}` });
  })();
  return streaming;
}

export async function run(): Promise<BenchResult> {
  const figures: Record<string, string | number> = {};
  const h = await startHarness();
  let browser: (Browser & { errors: string[] }) | undefined;
  try {
    const { gw } = h;
    const streaming = createFleet(gw);
    let deltas = 0;
    let chars = 0;
    gw.events.on((e) => {
      if (e.type === 'run:delta' && e.stream === 'text') {
        deltas++;
        chars += e.text.length;
      }
    });
    browser = await openBrowser(h.server.url);
    const { page } = browser;
    await row(page, streaming[0]!).click();
    await page.locator('[data-testid="transcript"][data-ready="true"]').waitFor();
    // Count the pushes the page receives (after the push bridge joined what it could).
    await page.evaluate('globalThis.__name ??= (f) => f');

    for (const key of streaming) await gw.human.send(key, `Stream the report ${key}`);
    await page
      .locator('[data-testid="transcript-live"] [data-testid="live-text"]')
      .waitFor({ timeout: 15_000 });
    await sleep(2000); // warm-up: every session is streaming
    const before = { deltas, chars };
    await startFrameSampling(page);
    await sleep(MEASURE_S * 1000);
    const frames = await stopFrameSampling(page);
    const tokens = deltas - before.deltas;
    const running = streaming.filter((k) => gw.status.get(k).status === 'running').length;
    // Any streamed text counts: every session starts a step each second at the same moment, so a
    // sample taken just after that boundary finds each row at its first token ("Step").
    const activity = await page.locator('[data-testid="row-activity"]', { hasText: /^Step\b/ }).count();

    figures['sessions in the fleet / streaming'] = `${FLEET} / ${STREAMING}`;
    figures['tokens per session per second (target 20)'] = round(tokens / STREAMING / MEASURE_S);
    figures['tokens streamed to the page per second'] = round(tokens / MEASURE_S);
    figures['streaming sessions still running at the end'] = running;
    figures['fleet rows showing their live line (of those in the DOM)'] = activity;
    figures['frames sampled'] = frames.frames;
    figures['frame interval p50 / p95 / max, ms'] = `${frames.p50} / ${frames.p95} / ${frames.max}`;
    figures['long tasks (> 50 ms), longest ms'] = `${frames.longTasks}, ${frames.longTaskMaxMs}`;
    figures['target: p95 ≤ 20 ms and no long task > 50 ms'] =
      frames.p95 <= 20 && frames.longTasks === 0 ? 'met' : 'MISSED';
    if (browser.errors.length) figures['page errors'] = browser.errors.slice(0, 3).join(' | ');
  } finally {
    await browser?.close();
    await h.close();
  }
  for (const [k, v] of Object.entries(figures)) console.log(`  ${k}: ${v}`);
  return { figures };
}
