// The page's side of acp-live.bench.ts: when each streamed line of the open session reached the
// screen, and whether the lines came in order, noted by the page itself (Playwright only reads the
// notes afterwards, so its polling adds nothing to the figures).
// A MutationObserver on the open transcript sees the React commit that puts a new line into the
// running step's text (or, for the last lines, into the message the turn landed as); the line counts as on screen when the frame that carries it has been
// painted: a message posted from that frame's requestAnimationFrame callback runs after the
// frame's style, layout and paint (the usual "after paint" mark). Times are Date.now(), the same
// wall clock the agent processes stamp their lines with (performance.timeOrigin differs per
// process by up to a millisecond or so, Date.now() reads one clock).
import type { Page } from 'playwright-core';

export interface PaintedLine {
  seq: number;
  sent: number;
  /** When the DOM first held it. */
  committed: number;
  /** When the frame holding it was painted. */
  painted: number;
}

export interface PageNotes {
  lines: PaintedLine[];
  /** Every time the running step's text was not the lines 1…n in order, what was wrong. */
  disorder: string[];
}

/** A string, not a function: tsx's keepNames would wrap a function in helpers the page lacks. */
const OBSERVER = `(() => {
  const notes = { lines: [], disorder: [] };
  window.__acpLive = notes;
  const re = /seq (\\d+) sent (\\d+)/g;
  let last = 0;
  let waiting = [];
  const afterPaint = () => {
    const at = Date.now();
    for (const l of waiting) l.painted = at;
    waiting = [];
  };
  const check = () => {
    // The running step's text; once the turn landed (its last lines may land with it, never
    // shown in the step), the landed message.
    const el =
      document.querySelector('[data-testid="transcript-live"] [data-testid="live-text"]') ??
      [...document.querySelectorAll('[data-testid="transcript-message"][data-role="assistant"] .text')].pop();
    if (!el) return;
    const at = Date.now();
    let prev = 0;
    const fresh = [];
    for (const m of el.textContent.matchAll(re)) {
      const seq = Number(m[1]);
      if (prev && seq !== prev + 1) notes.disorder.push(prev + ' then ' + seq + ' in the text');
      prev = seq;
      if (seq <= last) continue;
      if (seq !== last + 1) notes.disorder.push('first shown ' + seq + ' after ' + last);
      last = seq;
      fresh.push({ seq, sent: Number(m[2]), committed: at, painted: 0 });
    }
    if (!fresh.length) return;
    notes.lines.push(...fresh);
    const first = waiting.length === 0;
    waiting.push(...fresh);
    if (first)
      requestAnimationFrame(() => {
        const ch = new MessageChannel();
        ch.port1.onmessage = afterPaint;
        ch.port2.postMessage(null);
      });
  };
  const root = document.querySelector('[data-testid="transcript"]');
  new MutationObserver(check).observe(root, { subtree: true, childList: true, characterData: true });
  check();
})()`;

/** Starts noting lines in the open session's transcript (which must be on screen). */
export async function watchLiveLines(page: Page): Promise<void> {
  await page.evaluate(OBSERVER);
}

/** The highest sequence number on screen so far (0 before the first). */
export async function lastShown(page: Page): Promise<number> {
  return page.evaluate(
    '(window.__acpLive.lines.length ? window.__acpLive.lines[window.__acpLive.lines.length - 1].seq : 0)',
  );
}

export async function pageNotes(page: Page): Promise<PageNotes> {
  return page.evaluate('window.__acpLive') as Promise<PageNotes>;
}
