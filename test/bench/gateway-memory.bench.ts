// Gateway memory (issue 31): RSS after start with an empty fleet (goal ≤ 100 MB) and with
// 10,000 sessions once the first fleet snapshot was served (goal ≤ 250 MB).
//
// Measured as the app runs it: gateway-memory.child.ts (the gateway and the API handlers, what
// Electron's main creates before its window) is bundled with esbuild like out/main/main.cjs and
// run in plain Node, a fresh process per figure (tsx alone adds about 15 MB of its own and
// would be measured with it). Each figure is the median of three processes, after 500 ms and a
// full GC. Electron's own runtime is not part of it (its binary is not on this machine).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import type { BenchResult } from './run';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const SESSIONS = 10_000;
const RUNS = 3;

interface Sample {
  rssMB: number;
  heapMB: number;
}
interface ChildAnswer {
  started: Sample;
  served: Sample;
  sessions: number;
  bytes: number;
}

function child(bundle: string, args: string[]): ChildAnswer {
  const r = spawnSync(process.execPath, ['--expose-gc', bundle, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NODE_PATH: path.join(root, 'node_modules') },
  });
  if (r.status !== 0) throw new Error(`gateway-memory child failed (exit ${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as ChildAnswer;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round1 = (x: number) => Math.round(x * 10) / 10;

export async function run(): Promise<BenchResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-gwmem-'));
  try {
    const bundle = path.join(dir, 'gateway.cjs');
    await esbuild.build({
      entryPoints: [path.join(here, 'gateway-memory.child.ts')],
      outfile: bundle,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node22',
      external: ['better-sqlite3', 'electron'],
      logLevel: 'error',
      define: { 'process.env.NODE_ENV': '"production"' },
    });
    const empty = path.join(dir, 'empty');
    const fleet = path.join(dir, 'fleet');
    fs.mkdirSync(empty);
    fs.mkdirSync(fleet);
    child(bundle, [fleet, String(SESSIONS)]);
    const e: ChildAnswer[] = [];
    const f: ChildAnswer[] = [];
    for (let i = 0; i < RUNS; i++) {
      e.push(child(bundle, [empty]));
      f.push(child(bundle, [fleet]));
    }
    if (f.some((a) => a.sessions !== SESSIONS)) throw new Error(`snapshot did not hold ${SESSIONS} sessions`);
    return {
      figures: {
        'gateway RSS after start, empty fleet, MB (goal ≤ 100)': round1(
          median(e.map((a) => a.started.rssMB)),
        ),
        'JS heap in use after start, empty fleet, MB': round1(median(e.map((a) => a.started.heapMB))),
        [`gateway RSS with ${SESSIONS.toLocaleString('en-US')} sessions, after the first fleet snapshot, MB (goal ≤ 250)`]:
          round1(median(f.map((a) => a.served.rssMB))),
        [`fleet snapshot of ${SESSIONS.toLocaleString('en-US')} sessions, MB of JSON`]: round1(
          f[0]!.bytes / 1024 / 1024,
        ),
        'load average (1 min) at the end': round1(os.loadavg()[0]!),
      },
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
