// Side by side with the reference implementation (issue 18): the published `openclaw` package,
// under the Node 24 it needs, and Sightline through its gateway contract, on the same three
// workloads in one run, each phase in its own process on a fresh folder. Workload by workload
// (reference, then Sightline), so that both sides meet the same machine. Skipped with a one-line
// note when the reference cannot be installed (see peer/install.ts).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchResult } from './run';
import { installPeer, type PeerRuntime } from './peer/install';

const here = path.dirname(fileURLToPath(import.meta.url));
type Figures = Record<string, number>;

function runPhase(cmd: string, args: string[], env: NodeJS.ProcessEnv, out: string): Figures {
  const r = spawnSync(cmd, [...args, out], { env, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0)
    throw new Error(
      `${path.basename(args.at(-3) ?? cmd)} ${args.at(-2)}: exit ${r.status}\n${r.stderr.slice(-2000)}`,
    );
  return JSON.parse(fs.readFileSync(out, 'utf8')) as Figures;
}

export function compare(peer: PeerRuntime) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-peer-run-'));
  const dir = (side: string, workload: string) => {
    const d = path.join(root, side, workload);
    fs.mkdirSync(d, { recursive: true });
    return d;
  };
  const reference = (phase: string, d: string) =>
    runPhase(
      peer.node,
      [path.join(here, 'peer', 'reference-phase.mjs'), peer.dist, phase],
      { ...process.env, OPENCLAW_STATE_DIR: d, OPENCLAW_CONFIG_PATH: path.join(d, 'openclaw.json') },
      path.join(d, `${phase}.json`),
    );
  const sightline = (phase: string, d: string) =>
    runPhase(
      process.execPath,
      [...process.execArgv, path.join(here, 'peer', 'sightline-phase.ts'), phase, d],
      process.env,
      path.join(root, `${phase}-${path.basename(d)}.json`),
    );
  try {
    const ref = { append: reference('append', dir('ref', 'append')) } as Record<string, Figures>;
    const sl = { append: sightline('append', dir('sl', 'append')) } as Record<string, Figures>;
    ref.changesSince = reference('changesSince', dir('ref', 'since'));
    sl.changesSince = sightline('changesSince', dir('sl', 'since'));
    reference('sweepSetup', dir('ref', 'sweep'));
    ref.sweep = reference('sweepRestart', dir('ref', 'sweep'));
    sightline('sweepSetup', dir('sl', 'sweep'));
    sl.sweep = sightline('sweepRestart', dir('sl', 'sweep'));
    return {
      ref,
      sl,
      ratios: {
        append: sl.append!.eventsPerSec! / ref.append!.eventsPerSec!,
        changesSince: ref.changesSince!.medianUs! / sl.changesSince!.medianUs!,
        sweep: ref.sweep!.openAndSweepMs! / sl.sweep!.openAndSweepMs!,
      },
    };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

const x = (r: number) => `${r.toFixed(2)}×`;
const n = (v: number, d = 0) =>
  v.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

export async function run(): Promise<BenchResult> {
  const peer = installPeer();
  if ('skipped' in peer)
    return { figures: { 'side-by-side with the reference': `skipped: ${peer.skipped}` } };
  const loadBefore = os.loadavg()[0]!;
  const { ref, sl, ratios } = compare(peer);
  const load = `load average (1 min) ${loadBefore.toFixed(2)} before, ${os.loadavg()[0]!.toFixed(2)} after`;
  const rows = [
    [
      'append: 20,000 notify events over 100 targets × 3 watchers, one durable transaction each',
      `${n(sl.append!.eventsPerSec!)}/s`,
      `${n(ref.append!.eventsPerSec!)}/s`,
      x(ratios.append),
      '≥ 5×',
    ],
    [
      '`changesSince`: a full 200-event page from a 50,000-row log (median of 1,000)',
      `${n(sl.changesSince!.medianUs!, 1)} µs`,
      `${n(ref.changesSince!.medianUs!, 1)} µs`,
      x(ratios.changesSince),
      '≥ 5×',
    ],
    [
      'open + start-up sweep of 1,000 pending cursors',
      `${n(sl.sweep!.openAndSweepMs!, 1)} ms`,
      `${n(ref.sweep!.openAndSweepMs!, 1)} ms`,
      x(ratios.sweep),
      '≥ 10×',
    ],
    [
      'notices queued (append) / re-queued (sweep)',
      `${sl.append!.noticesQueued} / ${n(sl.sweep!.noticesRequeued!)}`,
      `${ref.append!.noticesQueued} / ${n(ref.sweep!.noticesRequeued!)}`,
      sl.append!.noticesQueued === ref.append!.noticesQueued &&
      sl.sweep!.noticesRequeued === ref.sweep!.noticesRequeued
        ? 'same'
        : 'DIFFERENT',
      'same',
    ],
  ];
  console.log(rows.map((r) => `  ${r.join(' | ')}`).join('\n'));
  return {
    tables: [
      {
        title: `Side by side with the reference (openclaw ${peer.version}, Node 24 vs Sightline, Node ${process.versions.node})`,
        columns: ['workload', 'Sightline', 'reference', 'ratio', 'goal'],
        rows,
        note: `One run, ${load}.`,
      },
    ],
  };
}
