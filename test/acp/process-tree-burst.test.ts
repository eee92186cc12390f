// A burst of kills reads the process table once: the gateway closing many agents at once (or
// handling their exits in one poll phase) used to read every /proc/<pid>/stat once per agent, so
// closing 200 agents blocked it for 1.3 s (the acp-live benchmark's profile). The work is counted
// here, not timed: one /proc listing per turn of the event loop, and every tree still dies.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { alive, descendants, signalTree } from '../../electron/gateway/runtime/acp/process-tree';
import { waitFor } from '../helpers/poll';

const started: number[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const pid of started.splice(0)) signalTree(pid, 'SIGKILL');
});

/** A process group whose leader (a shell) started a child of its own, as `npx` starts an adapter. */
function tree(): ChildProcess {
  const p = spawn('sh', ['-c', 'sleep 60 & wait'], { detached: true, stdio: 'ignore' });
  started.push(p.pid!);
  return p;
}

const nextTurn = () => new Promise((r) => setImmediate(r));
const procListings = (spy: { mock: { calls: unknown[][] } }) =>
  spy.mock.calls.filter((c) => c[0] === '/proc').length;

describe('signalTree in a burst (Linux: /proc)', () => {
  it('reads /proc once for five trees signalled in one turn, and kills all ten processes', async () => {
    const roots = Array.from({ length: 5 }, () => tree().pid!);
    // Each shell's sleep, once it is there (the same turn's listing is shared, so wait turns).
    const kids = await waitFor(
      async () => {
        await nextTurn();
        const found = roots.map((r) => descendants(r));
        return found.every((d) => d.length === 1) ? found.flat() : undefined;
      },
      10_000,
      'each shell to start its sleep',
    );
    await nextTurn();
    const listing = vi.spyOn(fs, 'readdirSync');
    for (const root of roots) signalTree(root, 'SIGKILL');
    expect(procListings(listing)).toBe(1);
    await waitFor(() => [...roots, ...kids].every((pid) => !alive(pid)), 10_000, 'all ten processes gone');
    // The next turn reads the table afresh.
    await nextTurn();
    descendants(roots[0]!);
    expect(procListings(listing)).toBe(2);
  });
});
