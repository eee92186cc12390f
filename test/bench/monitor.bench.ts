// The upstream monitor at scale (issue 31): CPU per check over 10,000 idle adopted Claude Code
// links (goal ≤ 50 ms). Each check stats every link's transcript (the cadence is the fallback
// and the source of misses; file events bring new lines between checks). CPU time of this
// process (process.cpuUsage, user + system) is the figure: on a shared machine the wall time is
// mostly waiting for a core. The same harness as catalog.bench.ts (a file-backed WAL database).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeHarness } from '../catalog/helpers';
import { CLAUDE_ID, claudeAssistant, claudeUser } from '../catalog/fixtures';
import type { BenchResult } from './run';

const LINKS = 10_000;
const CHECKS = 21;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round1 = (x: number) => Math.round(x * 10) / 10;

export async function run(): Promise<BenchResult> {
  const h = makeHarness();
  try {
    const dir = path.join(h.roots.claude, '-bench');
    fs.mkdirSync(dir, { recursive: true });
    for (let i = 0; i < LINKS; i++) {
      const id = CLAUDE_ID.slice(0, -6) + String(i).padStart(6, '0');
      fs.writeFileSync(path.join(dir, `${id}.jsonl`), claudeUser(`task ${i}`) + claudeAssistant('ok'));
      h.catalog.adopt({ provider: 'claude', threadId: id });
    }
    for (let r = 0; r < 3; r++) await h.catalog.tick(); // warm-up (JIT, page cache, the link rows)
    const cpu: number[] = [];
    const wall: number[] = [];
    for (let r = 0; r < CHECKS; r++) {
      const c = process.cpuUsage();
      const t = performance.now();
      await h.catalog.tick();
      wall.push(performance.now() - t);
      const d = process.cpuUsage(c);
      cpu.push((d.user + d.system) / 1000);
    }
    return {
      figures: {
        [`monitor: one check, ${LINKS.toLocaleString('en-US')} idle links, CPU ms, median (goal ≤ 50)`]:
          round1(median(cpu)),
        [`monitor: the same, wall ms, median`]: round1(median(wall)),
        'load average (1 min) at the end': round1(os.loadavg()[0]!),
      },
    };
  } finally {
    h.cleanup();
  }
}
