// The catalog at 10,000 transcripts (issue 31): the real Claude Code transcripts of the corpus
// (test/fixtures/corpora/real) copied into 2,500 project folders, each under fresh session ids
// and cut to their first and last 48 KiB (a listing reads at most a 64 KiB head and tail, so
// every window sees real rows; 10,000 files of up to 96 KiB), listed by the catalog:
//  * the first listing, from an empty index (what a person waits for once);
//  * a listing with the index warm (nothing changed: a stat per file);
//  * a listing after 100 transcripts grew (those are read again);
//  * a new transcript in a new project folder to catalog:changed (the root watch), p95 of 10.
// The heap the first listing leaves live (after a full GC when the process runs with
// --expose-gc) is reported beside the machine's load. The peer bench's catalog-compare.sh, kept
// outside this repository, compares the first listing with CloudCLI's.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeHarness } from '../catalog/helpers';

const COPIES = 2500;
/** How many transcripts (CATALOG_BENCH_TRANSCRIPTS for a quick try of the bench itself). */
const TRANSCRIPTS = Number(process.env.CATALOG_BENCH_TRANSCRIPTS ?? 10_000);
const KEEP = 48 * 1024;
const REAL = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../fixtures/corpora/real/claude/projects',
);
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** The first and last KEEP bytes of a transcript, cut at line ends. */
function cut(text: string): string {
  if (text.length <= 2 * KEEP) return text;
  const head = text.slice(0, text.lastIndexOf('\n', KEEP) + 1);
  const tail = text.slice(text.indexOf('\n', text.length - KEEP) + 1);
  return head + tail;
}

function replicate(root: string): string[] {
  const mains: { project: string; name: string; text: string }[] = [];
  for (const project of fs.readdirSync(REAL))
    for (const name of fs.readdirSync(path.join(REAL, project)))
      if (/^[0-9a-f-]{36}\.jsonl$/.test(name))
        mains.push({ project, name, text: cut(fs.readFileSync(path.join(REAL, project, name), 'latin1')) });
  const files: string[] = [];
  for (let k = 1; k <= COPIES; k++) {
    const sub = (u: string) => u.slice(0, -5) + k.toString(16).padStart(5, '0');
    for (const m of mains) {
      if (files.length >= TRANSCRIPTS) return files;
      const dir = path.join(root, `${m.project}-copy${k}`);
      fs.mkdirSync(dir, { recursive: true });
      files.push(path.join(dir, m.name.replace(UUID, sub)));
      fs.writeFileSync(files.at(-1)!, m.text.replace(UUID, sub), 'latin1');
    }
  }
  return files;
}

const ms = (t0: number) => +(performance.now() - t0).toFixed(1);
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * 0.95) - 1]!;
const mb = (n: number) => +(n / 1048576).toFixed(1);

export async function run(): Promise<Record<string, string | number>> {
  let changes = 0;
  const h = makeHarness({ onChanged: () => void changes++ });
  try {
    const written = replicate(h.roots.claude);
    const files = written.length;
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const heap0 = process.memoryUsage().heapUsed;
    const load0 = os.loadavg()[0]!.toFixed(1);

    let t0 = performance.now();
    const first = h.catalog.list();
    const firstMs = ms(t0);
    gc?.();
    const heapLive = process.memoryUsage().heapUsed - heap0;
    if (first.length !== files) throw new Error(`listed ${first.length} of ${files}`);
    await h.catalog.indexed();

    t0 = performance.now();
    const warm = h.catalog.list();
    const warmMs = ms(t0);
    if (warm.length !== files) throw new Error(`warm listing: ${warm.length} of ${files}`);

    for (const f of written.slice(0, 100)) fs.appendFileSync(f, '\n');
    t0 = performance.now();
    h.catalog.list();
    const grownMs = ms(t0);
    await h.catalog.indexed();

    h.catalog.start();
    const seen: number[] = [];
    for (let i = 0; i < 10; i++) {
      await new Promise((r) => setTimeout(r, 700));
      const before = changes;
      const dir = path.join(h.roots.claude, `-new-project-${i}`);
      t0 = performance.now();
      fs.mkdirSync(dir);
      fs.copyFileSync(
        written[i]!,
        path.join(dir, `0b9c2e4a-1111-4222-8333-${String(i).padStart(12, '0')}.jsonl`),
      );
      while (changes === before && performance.now() - t0 < 10_000)
        await new Promise((r) => setTimeout(r, 5));
      seen.push(ms(t0));
      h.catalog.list();
    }
    h.catalog.stop();
    return {
      transcripts: files,
      'first listing, empty index, ms': firstMs,
      'listing, index warm, nothing changed, ms': warmMs,
      'listing after 100 transcripts grew, ms': grownMs,
      'heap live after the first listing, MB': gc ? mb(heapLive) : 'run with --expose-gc',
      'new transcript to catalog:changed, p95 ms (500 ms coalescing)': p95(seen),
      'load average before / after': `${load0} / ${os.loadavg()[0]!.toFixed(1)}`,
    };
  } finally {
    h.cleanup();
  }
}
