// An agent's whole process tree, so that stopping an agent stops everything it started. `npx` is
// only a wrapper: the adapter it runs, and the CLI the adapter runs (Claude Code's `claude`), are
// its children and grandchildren, and a signal to the wrapper alone leaves them running,
// re-parented to PID 1. On POSIX the agent is the leader of a process group of its own (spawned
// `detached`), so one signal to the group reaches every member, also after the leader died; the
// descendants found through `/proc` (or `ps`) at the time of the kill are signalled too, for any
// that moved to a group of their own. On Windows, `taskkill /T` walks the tree.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/** Whether agents run in a process group of their own (spawn them with `detached: GROUPS`). */
export const GROUPS = process.platform !== 'win32';

/** pid → parent pid of every process this user can see. */
function parents(): Map<number, number> {
  const out = new Map<number, number>();
  if (process.platform === 'linux') {
    let names: string[] = [];
    try {
      names = fs.readdirSync('/proc');
    } catch {
      return out;
    }
    for (const name of names) {
      if (!/^\d+$/.test(name)) continue;
      try {
        // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
        const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        if (Number.isInteger(ppid)) out.set(Number(name), ppid);
      } catch {
        // The process ended while we looked.
      }
    }
    return out;
  }
  try {
    const text = execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8', timeout: 5_000 });
    for (const line of text.split('\n')) {
      const [pid, ppid] = line.trim().split(/\s+/).map(Number);
      if (Number.isInteger(pid) && Number.isInteger(ppid)) out.set(pid!, ppid!);
    }
  } catch {
    // No ps: the process group is all there is.
  }
  return out;
}

/** The process table (parent pid → child pids) read in this turn of the event loop. */
let snapshot: Map<number, number[]> | undefined;

/**
 * Parent → children, read once per turn of the event loop: a burst of kills (the gateway closing
 * 200 agents in one call, or their exits handled in one poll phase) reads /proc once, not once
 * per agent — 200 reads of 200-odd processes blocked the gateway for 1.3 s in the acp-live
 * benchmark's close. A process started later in the same turn is missed as it would be by a read
 * a moment earlier; its agent's process group and the next round's `known` still reach it.
 */
function childrenNow(): Map<number, number[]> {
  if (snapshot) return snapshot;
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of parents()) {
    const list = children.get(ppid);
    if (list) list.push(pid);
    else children.set(ppid, [pid]);
  }
  snapshot = children;
  setImmediate(() => (snapshot = undefined)).unref();
  return children;
}

/** Every descendant of `root` (not `root` itself), as seen in this turn of the event loop. */
export function descendants(root: number): number[] {
  const children = childrenNow();
  const out = new Set<number>();
  const stack = [root];
  while (stack.length) {
    for (const child of children.get(stack.pop()!) ?? []) {
      if (out.has(child)) continue;
      out.add(child);
      stack.push(child);
    }
  }
  return [...out];
}

const send = (pid: number, signal: NodeJS.Signals) => {
  try {
    process.kill(pid, signal);
  } catch {
    // ESRCH: gone already.
  }
};

/**
 * Signals the tree of `root`: its process group, the descendants seen in this turn of the event
 * loop and those in `known` (seen earlier, maybe re-parented since). Returns every pid it signalled, for the next round.
 * Synchronous, so it can run from a process 'exit' handler.
 */
export function signalTree(root: number, signal: NodeJS.Signals, known: Iterable<number> = []): Set<number> {
  if (!GROUPS) {
    try {
      execFileSync('taskkill', ['/pid', String(root), '/T', '/F'], { stdio: 'ignore', timeout: 5_000 });
    } catch {
      // Already gone.
    }
    return new Set([root]);
  }
  const pids = new Set([...known, ...descendants(root)]);
  send(-root, signal); // the whole group, leader included, also after the leader died
  send(root, signal);
  for (const pid of pids) send(pid, signal);
  pids.add(root);
  return pids;
}

/** Whether a process with this pid is alive (and not a zombie). */
export function alive(pid: number): boolean {
  if (process.platform === 'linux') {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
