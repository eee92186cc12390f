// Event-driven upstream detection (issue 31): with the monitor's cadence frozen on a fake clock,
// a person's line written into an adopted transcript is recorded from the file's own event; a
// deletion runs the link's first check at once and the cadence the other two; a half-written
// line waits for its end; the watchers go with the links.
import fs from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeClock } from '../helpers/clock';
import {
  CLAUDE_ID,
  CODEX_ID,
  PI_ID,
  claudeUser,
  codexUserMessage,
  piMessage,
  writeClaude,
  writeCodex,
  writePi,
} from './fixtures';
import { humanTurns, linkRow, makeHarness, type Harness, type Recorded } from './helpers';

let h: Harness | undefined;
afterEach(() => {
  h?.cleanup();
  h = undefined;
});

/** Resolves with the next recorded event of `kind` (the harness's signal log is an array). */
function nextEvent(harness: Harness, kind: string): Promise<Recorded> {
  const events = harness.events;
  const push = events.push.bind(events);
  return new Promise((resolve) => {
    events.push = (...items: Recorded[]) => {
      const n = push(...items);
      const hit = items.find((e) => e.kind === kind);
      if (hit) {
        events.push = push;
        resolve(hit);
      }
      return n;
    };
  });
}

function started(): { h: Harness; clock: FakeClock } {
  const clock = new FakeClock();
  h = makeHarness({ scheduler: clock });
  h.catalog.start();
  return { h, clock };
}

describe('a step-in is recorded from the file event, not at the next check', () => {
  const cases = [
    {
      tool: 'claude',
      id: CLAUDE_ID,
      write: (x: Harness) => writeClaude(x.roots.claude),
      human: () => claudeUser('stop, use the staging database'),
    },
    {
      tool: 'codex',
      id: CODEX_ID,
      write: (x: Harness) => writeCodex(x.roots.codex),
      human: () => codexUserMessage('stop, use the staging database'),
    },
    {
      tool: 'pi',
      id: PI_ID,
      write: (x: Harness) => writePi(x.roots.pi),
      human: () =>
        piMessage({ role: 'user', content: [{ type: 'text', text: 'stop, use staging' }] }, 'e63f4051'),
    },
  ];
  for (const c of cases)
    it(`${c.tool}: one human_direct_message, the cadence never ran`, async () => {
      const { h, clock } = started();
      const file = c.write(h);
      const s = h.catalog.adopt({ provider: c.tool, threadId: c.id });
      expect(h.catalog.watchedFiles()).toBe(1);
      const seen = nextEvent(h, 'human_direct_message');
      fs.appendFileSync(file, c.human());
      const ev = await seen;
      expect(ev.sessionKey).toBe(s.key);
      expect(ev.summary).toBe(`human message via ${c.tool}`);
      expect(ev.payload).toBeUndefined();
      expect(clock.t).toBe(new FakeClock().t); // no check ran: the clock never moved
      expect(humanTurns(h.events, s.key)).toEqual({ events: 1, turns: 1 });
    });
});

describe('bounded reads', () => {
  it('a half-written line waits for its end; the line is counted once', async () => {
    const { h } = started();
    const file = writeClaude(h.roots.claude);
    const s = h.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID });
    const row = claudeUser('first half and second half');
    const seen = nextEvent(h, 'human_direct_message');
    fs.appendFileSync(file, row.slice(0, 40));
    fs.appendFileSync(file, row.slice(40));
    await seen;
    expect(humanTurns(h.events, s.key)).toEqual({ events: 1, turns: 1 });
  });
});

describe('deletion', () => {
  it('the first miss at once, the other two from the cadence, then upstream_missing and no watcher', async () => {
    const { h, clock } = started();
    const file = writeClaude(h.roots.claude);
    const s = h.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID });
    fs.rmSync(file);
    // The deletion event runs the link's first check without the clock moving.
    await vi.waitFor(() => expect(linkRow(h.db, s.key)?.missing_streak).toBe(1), { interval: 5 });
    expect(h.events.filter((e) => e.kind === 'upstream_missing')).toHaveLength(0);
    clock.tick(15_000); // the first check of the cadence
    await h.catalog.tick();
    expect(linkRow(h.db, s.key)?.missing_streak).toBe(2);
    const missing = nextEvent(h, 'upstream_missing');
    clock.tick(60_000);
    await h.catalog.tick();
    expect((await missing).summary).toBe('upstream missing via claude');
    expect(linkRow(h.db, s.key)).toBeUndefined();
    expect(h.catalog.watchedFiles()).toBe(0);
  });

  it('a link that goes releases its watcher', () => {
    const { h, clock } = started();
    writeClaude(h.roots.claude);
    const s = h.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID });
    expect(h.catalog.watchedFiles()).toBe(1);
    h.db.prepare('DELETE FROM catalog_upstream_links WHERE session_key = ?').run(s.key);
    clock.tick(1000); // the watched files follow the watched links every WATCH_SYNC_MS
    expect(h.catalog.watchedFiles()).toBe(0);
  });
});
