// The monitor's cadence (first check 15 s after start, then every 60 s), the per-provider budget,
// and discovery at scale: 2,000 sessions listed from head/tail windows only, without blocking.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { nodeFs, type CatalogFs } from '../../electron/gateway/catalog/kit/fsio';
import { HEAD_MAX_BYTES, TAIL_BYTES } from '../../electron/gateway/catalog/kit/windows';
import { humanTurns, makeHarness, type Harness } from './helpers';
import { CLAUDE_ID, claudeAssistant, claudeUser, writeClaude } from './fixtures';

let h: Harness;
afterEach(() => {
  vi.useRealTimers();
  h.cleanup();
});

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

describe('cadence', () => {
  it('checks 15 s after start, then every 60 s, and not after stop()', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    // The cadence alone, as on a file system without events (watch.test.ts: with them).
    h = makeHarness({ fileEvents: false });
    const file = writeClaude(h.roots.claude);
    h.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID });
    h.catalog.start();
    fs.appendFileSync(file, claudeUser('one'));
    await vi.advanceTimersByTimeAsync(14_900);
    await settle();
    expect(humanTurns(h.events).events).toBe(0);
    await vi.advanceTimersByTimeAsync(100);
    await settle();
    expect(humanTurns(h.events).events).toBe(1);
    fs.appendFileSync(file, claudeUser('two'));
    await vi.advanceTimersByTimeAsync(59_000);
    await settle();
    expect(humanTurns(h.events).events).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000);
    await settle();
    expect(humanTurns(h.events).events).toBe(2);
    h.catalog.stop();
    fs.appendFileSync(file, claudeUser('three'));
    await vi.advanceTimersByTimeAsync(120_000);
    await settle();
    expect(humanTurns(h.events).events).toBe(2);
  });

  it('a provider over its budget leaves the remaining links for the next check', async () => {
    h = makeHarness({ providerBudgetMs: 0 });
    const files = [0, 1, 2].map((i) => {
      const id = `${CLAUDE_ID.slice(0, -1)}${i}`;
      const file = path.join(h.roots.claude, '-p', `${id}.jsonl`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, claudeUser('start'));
      h.catalog.adopt({ provider: 'claude', threadId: id });
      return file;
    });
    for (const f of files) fs.appendFileSync(f, claudeUser('more'));
    const seen: number[] = [];
    for (let i = 0; i < 3; i++) {
      // Any link may be the one that runs first; a slow machine keeps the budget exceeded.
      await h.catalog.tick();
      seen.push(humanTurns(h.events).events);
    }
    expect(seen[0]).toBeGreaterThanOrEqual(1);
    expect(seen[2]).toBe(3);
  });
});

describe('discovery at scale', () => {
  it('lists 2,000 sessions reading only head and tail windows, and listAsync keeps the event loop responsive', async () => {
    const readPerFile = new Map<number, number>();
    const fdPath = new Map<number, string>();
    const perPath = new Map<string, number>();
    const counting: CatalogFs = {
      ...nodeFs,
      openSync(p, flags) {
        const fd = nodeFs.openSync(p, flags);
        fdPath.set(fd, p);
        return fd;
      },
      readSync(fd, buf, off, len, pos) {
        const n = nodeFs.readSync(fd, buf, off, len, pos);
        readPerFile.set(fd, (readPerFile.get(fd) ?? 0) + n);
        const p = fdPath.get(fd)!;
        perPath.set(p, (perPath.get(p) ?? 0) + n);
        return n;
      },
    };
    h = makeHarness({ fs: counting });
    const dir = path.join(h.roots.claude, '-scale');
    fs.mkdirSync(dir, { recursive: true });
    const small = claudeUser('a small session') + claudeAssistant('ok');
    for (let i = 0; i < 1990; i++)
      fs.writeFileSync(
        path.join(dir, `${String(i).padStart(8, '0')}-0000-4000-8000-000000000000.jsonl`),
        small,
      );
    // Ten 8 MiB sessions: only their windows may be read.
    const big =
      claudeUser('a big session') +
      claudeAssistant('z'.repeat(8 * 1024 * 1024)) +
      `${JSON.stringify({ type: 'ai-title', aiTitle: 'Big one' })}\n`;
    for (let i = 0; i < 10; i++)
      fs.writeFileSync(path.join(dir, `bbbbbbb${i}-0000-4000-8000-000000000000.jsonl`), big);

    const list = h.catalog.list();
    expect(list.filter((e) => e.provider === 'claude')).toHaveLength(2000);
    expect(list.filter((e) => e.title === 'Big one')).toHaveLength(10);
    for (const [p, n] of perPath)
      if (p.includes('big')) expect(n).toBeLessThanOrEqual(HEAD_MAX_BYTES + TAIL_BYTES);

    // The event loop must get control back while the scan runs (not only once at the end).
    // A new stamp on every file makes the catalog index miss, so listAsync reads them all again
    // (a warm listing from the index is too short to need many slices).
    const later = new Date(Date.now() + 60_000);
    for (const f of fs.readdirSync(dir)) fs.utimesSync(path.join(dir, f), later, later);
    // Counting turns, not measuring gaps, keeps this independent of the machine's load.
    let turns = 0;
    let listing = true;
    const spin = () => {
      turns++;
      if (listing) setImmediate(spin);
    };
    setImmediate(spin);
    const t0 = performance.now();
    const again = await h.catalog.listAsync();
    const took = performance.now() - t0;
    listing = false;
    expect(again).toEqual(list);
    // Slices of about 8 ms: a scan of `took` ms gives control back at least once per 50 ms of it
    // (a slice may overrun by one file), and more than once in any case.
    expect(turns).toBeGreaterThanOrEqual(Math.max(2, Math.floor(took / 50)));
  });
});
