// /proc readings for acp-live.bench.ts (Linux): a process's resident memory and CPU time, and the
// benchmark's agent processes, found by the run token in their command line.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

const TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** VmRSS of `pid`, bytes (0 when it is gone). */
export function rssBytes(pid: number): number {
  try {
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return Number(kb ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** User + system CPU seconds `pid` has used so far (its own threads; not its waited-for children). */
export function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

/** Processes whose command line holds `token`, with their RSS. */
export function agentProcesses(token: string): { pid: number; rss: number }[] {
  const found: { pid: number; rss: number }[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let cmdline = '';
    try {
      cmdline = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    if (cmdline.includes(token)) found.push({ pid: Number(name), rss: rssBytes(Number(name)) });
  }
  return found;
}

/** The parent pid of `pid` (0 when it is gone). */
function parentOf(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}

/** Chromium's renderer processes started by this process (the browser it launched is their parent). */
export function ownRenderers(): number[] {
  const found: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let cmdline = '';
    try {
      cmdline = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!cmdline.includes('--type=renderer')) continue;
    for (let p = Number(name), hops = 0; p > 1 && hops < 6; p = parentOf(p), hops++)
      if (p === process.pid) {
        found.push(Number(name));
        break;
      }
  }
  return found;
}
