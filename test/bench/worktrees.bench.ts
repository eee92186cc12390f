// Benchmark of a worktree's diff stats (issue 26): a real repository of 1,000 files, a real
// `git worktree add`, and 1,000 of the worktree's files changed (uncommitted, as an agent leaves
// them). One sample is what the service does for a fleet row's counts: `git add -A` into
// Sightline's private index, then side by side one `git diff --raw --numstat` against the base
// (files, status, +/−) and one `git diff --name-only` against HEAD (uncommitted). No patch: that
// is made per file when a person opens one, and one file's patch is timed too. git runs in child
// processes; the event loop's worst delay while a count runs shows whether the gateway's thread
// was blocked (reading git's output field by field is the only work on it).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { WorktreeInfo } from '../../shared/domain';
import { countChanges, patchOf } from '../../electron/gateway/worktrees/diff';

const FILES = 1000;
const SAMPLES = 10;

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-C', cwd, ...args], {
    encoding: 'utf8',
    env: { ...process.env, LC_ALL: 'C' },
  }).trim();

function p95(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(s.length * 0.95) - 1)]!;
}

function makeWorktree(dir: string): WorktreeInfo {
  const repo = path.join(dir, 'repo');
  fs.mkdirSync(repo);
  git(repo, 'init', '--quiet', '-b', 'main');
  git(repo, 'config', 'user.name', 'Bench');
  git(repo, 'config', 'user.email', 'bench@example.com');
  for (let i = 0; i < FILES; i++) {
    const sub = path.join(repo, `src/m${i % 20}`);
    fs.mkdirSync(sub, { recursive: true });
    fs.writeFileSync(path.join(sub, `f${i}.ts`), `export const v${i} = ${i};\n`.repeat(20));
  }
  git(repo, 'add', '-A');
  git(repo, 'commit', '--quiet', '-m', 'base');
  const wt = path.join(dir, 'wt');
  git(repo, 'worktree', 'add', '--quiet', '-b', 'sightline/bench', wt);
  return {
    path: wt,
    branch: 'sightline/bench',
    base: 'main',
    baseCommit: git(repo, 'rev-parse', 'HEAD'),
    repository: repo,
  };
}

/** One diff as the service computes it; the worst event-loop delay meanwhile. */
async function sample(
  w: WorktreeInfo,
  index: string,
): Promise<{ ms: number; lagMs: number; cpuMs: number; files: number }> {
  const lag = monitorEventLoopDelay({ resolution: 5 });
  lag.enable();
  const cpu = process.cpuUsage();
  const t = performance.now();
  const d = await countChanges(w, index);
  const ms = performance.now() - t;
  const used = process.cpuUsage(cpu);
  lag.disable();
  return { ms, lagMs: lag.max / 1e6, cpuMs: (used.user + used.system) / 1000, files: d.files.length };
}

export async function run(): Promise<Record<string, string | number>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-worktrees-'));
  try {
    const w = makeWorktree(dir);
    for (let i = 0; i < FILES; i++)
      fs.appendFileSync(path.join(w.path, `src/m${i % 20}/f${i}.ts`), `export const w${i} = ${i};\n`);
    const index = path.join(dir, 'private.index');
    const first = await sample(w, index);
    if (first.files !== FILES) throw new Error(`expected ${FILES} changed files, got ${first.files}`);
    const warm: number[] = [];
    const lags: number[] = [first.lagMs];
    const cpus: number[] = [];
    for (let n = 0; n < SAMPLES; n++) {
      // An agent keeps working: one more file changes between samples.
      fs.appendFileSync(path.join(w.path, `src/m0/f${n * 20}.ts`), `// edit ${n}\n`);
      const s = await sample(w, index);
      warm.push(s.ms);
      lags.push(s.lagMs);
      cpus.push(s.cpuMs);
    }
    const worst = Math.max(first.ms, p95(warm));
    const opened: number[] = [];
    for (let n = 0; n < SAMPLES; n++) {
      const t = performance.now();
      const patch = await patchOf(w, index, {
        path: `src/m${n}/f${n}.ts`,
        status: 'modified',
        additions: 1,
        deletions: 0,
      });
      opened.push(performance.now() - t);
      if (!patch.includes(`+export const w${n} = ${n};`)) throw new Error(`no patch for src/m${n}/f${n}.ts`);
    }
    return {
      'changed files': FILES,
      'first counts, private index seeded (ms)': Number(first.ms.toFixed(0)),
      [`next counts after one more edit, p95 of ${SAMPLES} (ms)`]: Number(p95(warm).toFixed(0)),
      // CPU time of the gateway's own process (git's children not counted): what a count costs its thread.
      'gateway-process CPU per count, p95 (ms)': Number(p95(cpus).toFixed(1)),
      'worst event-loop delay during a count (ms)': Number(Math.max(...lags).toFixed(1)),
      [`one file's patch when opened, p95 of ${SAMPLES} (ms)`]: Number(p95(opened).toFixed(0)),
      'load average when measured (2 cores)': Number(os.loadavg()[0]!.toFixed(1)),
      'target <= 500 ms, off the main thread (git in child processes)': worst <= 500 ? 'met' : 'missed',
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
