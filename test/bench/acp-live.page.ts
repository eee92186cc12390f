// The page's side of acp-live.bench.ts: when each streamed line of the open session arrived in a
// push, reached the DOM and was painted, and whether the lines came in order, noted by the page
// itself (Playwright only reads the notes afterwards, so its polling adds nothing to the figures).
//   * Arrived: a listener on the app's WebSocket (added before the app's own, by an init script)
//     finds the open session's run:delta text in each push.
//   * In the DOM: a MutationObserver on the open transcript sees the React commit that puts a new
//     line into the running step's text (or, for the last lines, into the message the turn landed
//     as).
//   * Painted: when the frame that carries the commit has been drawn. The app applies pushes in a
//     requestAnimationFrame callback and React commits in the microtasks after it, inside that
//     frame's rendering step; a task posted from the frame's first rAF callback runs once the
//     step (style, layout, paint) is over, and that is the mark. A commit outside a frame waits
//     for the next frame's mark.
// Times are Date.now(), the wall clock the agent processes stamp their lines with (each process's
// performance.timeOrigin is its own, off by up to a millisecond or so; Date.now() reads one clock).
import type { Page } from 'playwright-core';

export interface PaintedLine {
  seq: number;
  sent: number;
  /** When the push carrying it reached the page (0 if it was not seen there). */
  arrived: number;
  /** When the DOM first held it. */
  committed: number;
  /** When the frame holding it was painted. */
  painted: number;
}

export interface PageNotes {
  lines: PaintedLine[];
  /** Every time the shown text was not the lines 1…n in order, what was wrong. */
  disorder: string[];
  /** The page's main-thread tasks over 50 ms: when (epoch ms) and how long. */
  longTasks: { at: number; ms: number }[];
}

/** Strings, not functions: tsx's keepNames would wrap a function in helpers the page lacks. */
const INIT = `(() => {
  const notes = { key: '', arrived: {}, lines: [], disorder: [], afterFrame: [], rendering: false, marker: 'seq (\\\\d+) sent', line: 'seq (\\\\d+) sent (\\\\d+)', consecutive: true };
  window.__acpLive = notes;
  const raf = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = (cb) =>
    raf((t) => {
      if (!notes.rendering) {
        notes.rendering = true;
        const ch = new MessageChannel();
        ch.port1.onmessage = () => {
          notes.rendering = false;
          const at = Date.now();
          const marks = notes.afterFrame;
          notes.afterFrame = [];
          for (const mark of marks) mark(at);
        };
        ch.port2.postMessage(null);
      }
      cb(t);
    });
  notes.longTasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) notes.longTasks.push({ at: performance.timeOrigin + e.startTime, ms: e.duration });
  }).observe({ type: 'longtask' });
  const Socket = window.WebSocket;
  window.WebSocket = class extends Socket {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (ev) => {
        if (!notes.key || typeof ev.data !== 'string') return;
        const at = Date.now();
        const head = '"sessionKey":' + JSON.stringify(notes.key) + ',"runId":';
        for (let i = ev.data.indexOf(head); i !== -1; i = ev.data.indexOf(head, i + 1)) {
          const text = /"stream":"text","text":"((?:[^"\\\\]|\\\\.)*)"/y;
          text.lastIndex = ev.data.indexOf('"stream"', i);
          const found = text.exec(ev.data);
          if (found) for (const m of found[1].matchAll(new RegExp(notes.marker, 'g'))) notes.arrived[m[1]] ??= at;
        }
      });
    }
  };
})()`;

const OBSERVER = `(() => {
  const notes = window.__acpLive;
  const re = new RegExp(notes.line, 'g');
  let last = 0;
  const check = () => {
    const el =
      document.querySelector('[data-testid="transcript-live"] [data-testid="live-text"]') ??
      [...document.querySelectorAll('[data-testid="transcript-message"][data-role="assistant"] .text')].pop();
    if (!el) return;
    const at = Date.now();
    let prev = 0;
    const fresh = [];
    for (const m of el.textContent.matchAll(re)) {
      const seq = Number(m[1]);
      if (prev && (notes.consecutive ? seq !== prev + 1 : seq <= prev)) notes.disorder.push(prev + ' then ' + seq + ' in the text');
      prev = seq;
      if (seq <= last) continue;
      if (notes.consecutive ? seq !== last + 1 : seq <= last) notes.disorder.push('first shown ' + seq + ' after ' + last);
      last = seq;
      fresh.push({ seq, sent: m[2] ? Number(m[2]) : 0, arrived: notes.arrived[seq] ?? 0, committed: at, painted: 0 });
    }
    if (!fresh.length) return;
    notes.lines.push(...fresh);
    notes.afterFrame.push((painted) => fresh.forEach((l) => (l.painted = painted)));
    if (!notes.rendering) window.requestAnimationFrame(() => undefined);
  };
  const root = document.querySelector('[data-testid="transcript"]');
  new MutationObserver(check).observe(root, { subtree: true, childList: true, characterData: true });
  check();
})()`;

/** Before the app's scripts run: the marks above. Reloads the page so they are in place. */
export async function instrument(page: Page): Promise<void> {
  await page.addInitScript(INIT);
  await page.reload();
  await page.locator('[data-testid="app"][data-ready="true"]').waitFor();
}

/**
 * How the streamed text marks its pieces: `marker` finds a piece's number in a push (group 1),
 * `line` a piece on screen (group 1 the number, group 2 its send time when the text carries it,
 * else `sent` stays 0 for the caller to fill in); `consecutive` when one session's numbers go
 * 1, 2, 3… (else they only rise: several agents share one counter).
 */
export interface Markers {
  marker: string;
  line: string;
  consecutive: boolean;
}

/** Starts noting the open session's lines (its transcript must be on screen). */
export async function watchLiveLines(page: Page, sessionKey: string, markers?: Markers): Promise<void> {
  await page.evaluate(`Object.assign(window.__acpLive, ${JSON.stringify({ key: sessionKey, ...markers })})`);
  await page.evaluate(OBSERVER);
}

/** The highest sequence number on screen so far (0 before the first). */
export async function lastShown(page: Page): Promise<number> {
  return page.evaluate('window.__acpLive.lines.length ? window.__acpLive.lines.at(-1).seq : 0');
}

export async function pageNotes(page: Page): Promise<PageNotes> {
  return page.evaluate(
    '({ lines: window.__acpLive.lines, disorder: window.__acpLive.disorder, longTasks: window.__acpLive.longTasks })',
  ) as Promise<PageNotes>;
}
