// Reconnecting by itself (issue 19.3): while a node is listed and its connection drops, the
// gateway tries again after 1 s, 2 s, 4 s … up to a minute between tries, and starts again from
// 1 s once a try succeeds. Driven by the fake clock (each retry runs when the clock reaches it,
// not a millisecond before); the node is a real process behind a wrapper that refuses to start
// while the test keeps it down.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../electron/gateway/db/open';
import { createNodes, RECONNECT_FIRST_MS, RECONNECT_MAX_MS } from '../../electron/gateway/nodes/service';
import type { Scheduler } from '../../electron/gateway/scheduler';
import { collectingLogger, FakeClock, tempDir, waitFor } from '../helpers/gateway';
import { downableNode, type DownableNode } from './helpers';
import { createNodeRepository } from '../../electron/gateway/nodes/repository';

let db: Db | undefined;
let node: DownableNode | undefined;
let close: (() => void) | undefined;
afterEach(() => {
  close?.();
  db?.close();
  if (node) fs.rmSync(node.dir, { recursive: true, force: true });
  db = node = close = undefined;
});

/** The nodes service alone, on its own database, with `scheduler`; and a node to add. */
async function setup(clock: FakeClock, scheduler: Scheduler) {
  const dataDir = tempDir('sightline-reconnect-');
  db = openDatabase(dataDir);
  const nodes = createNodes({
    repo: createNodeRepository(db),
    now: clock.now,
    scheduler,
    logger: collectingLogger(),
    emit: () => {},
    launch: { sshCommand: ['ssh'] },
    helloTimeoutMs: 10_000,
    removeLinks: () => {},
    localId: 'this-machine',
  });
  close = () => {
    nodes.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  const n = (node = await downableNode());
  return { nodes, node: n };
}

describe('reconnecting to a node', () => {
  it('waits 1 s, 2 s, 4 s … up to 60 s between tries, and from 1 s again after a success', async () => {
    const clock = new FakeClock();
    /** Each retry the nodes service schedules: its delay, and the clock when it ran. */
    const delays: number[] = [];
    const ran: number[] = [];
    const scheduler: Scheduler = {
      after: (ms, fn) => {
        delays.push(ms);
        return clock.after(ms, () => {
          ran.push(clock.now());
          fn();
        });
      },
      every: (ms, fn) => clock.every(ms, fn),
    };
    const { nodes, node } = await setup(clock, scheduler);
    const { id } = await nodes.add({ command: node.command, name: 'devbox' });
    nodes.start();
    expect(nodes.online(id)).toBe(true);

    // Dropped, and kept down: every try fails, and the wait doubles up to a minute.
    const droppedAt = clock.now();
    node.down();
    await waitFor(() => delays.length === 1, 5000, 'the first retry to be scheduled');
    const expected = [1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000];
    for (let i = 0; i < expected.length; i++) {
      expect(delays[i]).toBe(expected[i]);
      // Not a millisecond early.
      clock.tick(expected[i]! - 1);
      expect(ran).toHaveLength(i);
      clock.tick(1);
      expect(ran[i]).toBe(clock.now());
      await waitFor(() => delays.length === i + 2, 5000, `try ${i + 1} to fail and the next to be scheduled`);
    }
    expect(delays.slice(0, 2)).toEqual([RECONNECT_FIRST_MS, 2 * RECONNECT_FIRST_MS]);
    expect(Math.max(...delays)).toBe(RECONNECT_MAX_MS);
    expect(node.starts()).toBe(1 + expected.length);
    const offline = nodes.get(id)!;
    expect(offline).toMatchObject({ state: 'offline', offlineSince: droppedAt });
    expect(offline.lastError).toContain('the test keeps this node down');

    // Up again: the next try (a minute later) connects, and the wait starts from 1 s again.
    node.up();
    clock.tick(RECONNECT_MAX_MS);
    await waitFor(() => nodes.online(id), 5000, 'the node to be back online');
    expect(nodes.get(id)).toMatchObject({ state: 'online' });
    expect(nodes.get(id)?.offlineSince).toBeUndefined();
    const before = delays.length;
    node.down();
    await waitFor(() => delays.length === before + 1, 5000, 'the retry after the second drop');
    expect(delays.at(-1)).toBe(RECONNECT_FIRST_MS);
    clock.tick(RECONNECT_FIRST_MS);
    await waitFor(() => delays.length === before + 2, 5000, 'the second try after the second drop');
    expect(delays.at(-1)).toBe(2 * RECONNECT_FIRST_MS);
  });

  it('stops trying once the node is removed', async () => {
    const clock = new FakeClock();
    const { nodes, node } = await setup(clock, clock);
    const { id } = await nodes.add({ command: node.command });
    nodes.start();
    node.down();
    await waitFor(() => clock.pending() === 1, 5000, 'the first retry to be scheduled');
    nodes.remove(id);
    expect(clock.pending()).toBe(0);
    clock.tick(10 * RECONNECT_MAX_MS);
    expect(node.starts()).toBe(1);
  });
});
