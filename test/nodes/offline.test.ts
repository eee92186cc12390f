// A node that is unreachable or slow is not a missing source (issue 19.4): killed with SIGKILL
// and kept down for ten checks, its links' checks are inconclusive (no upstream_missing, the
// streak stays 0) and the host shows offline; back, the next check counts what was added
// meanwhile, once. A stopped (SIGSTOP) node delays neither the local check nor another node's.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adoptedKeyFor } from '../../shared/session-keys';
import { adoptedKey } from '../../electron/gateway/catalog';
import { openTestGateway, tempDir, waitFor, type TestGateway } from '../helpers/gateway';
import { CLAUDE_ID, claudeUser, writeClaude } from '../catalog/fixtures';
import { makeNode, makeRoots, missingStreak, type Roots, type TestNode } from './helpers';

let t: TestGateway;
let local: Roots;
const nodes: TestNode[] = [];

beforeEach(() => {
  local = makeRoots(tempDir('sightline-local-'));
  t = openTestGateway({ catalogRoots: local, nodes: { requestTimeoutMs: 3000, helloTimeoutMs: 5000 } });
});
afterEach(() => {
  t.cleanup();
  for (const n of nodes.splice(0)) fs.rmSync(n.dir, { recursive: true, force: true });
});

const humanEvents = (key: string) =>
  t.gw.state.changesSince(key, 0).events.filter((e) => e.kind === 'human_direct_message');
const missing = (key: string) =>
  t.gw.state.changesSince(key, 0).events.filter((e) => e.kind === 'upstream_missing');
const streak = (key: string) => missingStreak(t.gw, key);

/** A node behind a wrapper: it writes its pid (exec keeps it) and refuses to start while `down` exists. */
async function wrappedNode(): Promise<TestNode & { pidFile: string; down: string }> {
  const n = await makeNode();
  nodes.push(n);
  const pidFile = path.join(n.dir, 'pid');
  const down = path.join(n.dir, 'down');
  const script = path.join(n.dir, 'node.sh');
  const quoted = n.command.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  fs.writeFileSync(
    script,
    `[ -e '${down}' ] && { echo "the test keeps this node down" >&2; exit 1; }\necho $$ > '${pidFile}'\nexec ${quoted}\n`,
  );
  return { ...n, command: ['/bin/sh', script], pidFile, down };
}

describe('an unreachable node', () => {
  it('killed for ten checks: no upstream_missing, offline; back: what was added meanwhile counts once', async () => {
    const n = await wrappedNode();
    const file = writeClaude(n.roots.claude);
    const { id } = await t.gw.catalog.nodes.add({ command: n.command, name: 'laptop' });
    const key = adoptedKeyFor('claude', CLAUDE_ID, id);
    await t.gw.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID, hostId: id });
    fs.appendFileSync(file, claudeUser('before the crash'));
    await t.gw.catalog.tick();
    expect(humanEvents(key)).toHaveLength(1);

    fs.writeFileSync(n.down, '');
    process.kill(Number(fs.readFileSync(n.pidFile, 'utf8')), 'SIGKILL');
    await waitFor(() => t.gw.catalog.nodes.list()[0]?.state === 'offline', 5000, 'the node to show offline');
    fs.appendFileSync(file, claudeUser('while the node was down') + claudeUser('and once more'));
    for (let i = 0; i < 10; i++) await t.gw.catalog.tick();
    expect(missing(key)).toHaveLength(0);
    expect(streak(key)).toBe(0);
    expect(humanEvents(key)).toHaveLength(1);
    const [info] = t.gw.catalog.nodes.list();
    expect(info).toMatchObject({ state: 'offline', name: 'laptop' });
    expect(info?.offlineSince).toEqual(expect.any(Number));
    expect(info?.lastError).toContain('the test keeps this node down');

    fs.rmSync(n.down);
    await t.gw.catalog.tick();
    expect(t.gw.catalog.nodes.list()[0]?.state).toBe('online');
    expect(humanEvents(key).map((e) => e.payload)).toEqual([undefined, { turns: 2 }]);
    await t.gw.catalog.tick();
    expect(humanEvents(key)).toHaveLength(2);
    expect(missing(key)).toHaveLength(0);
  });

  it('a stopped node is bounded: the local check and another node are not held up', async () => {
    const slow = await wrappedNode();
    const fast = await makeNode();
    nodes.push(fast);
    const slowFile = writeClaude(slow.roots.claude);
    const fastFile = writeClaude(fast.roots.claude);
    const localFile = writeClaude(local.claude);
    const a = await t.gw.catalog.nodes.add({ command: slow.command });
    const b = await t.gw.catalog.nodes.add({ command: fast.command });
    for (const hostId of [a.id, b.id])
      await t.gw.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID, hostId });
    t.gw.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID });
    const keys = {
      slow: adoptedKeyFor('claude', CLAUDE_ID, a.id),
      fast: adoptedKeyFor('claude', CLAUDE_ID, b.id),
    };
    const localKey = adoptedKey('claude', CLAUDE_ID);

    const pid = Number(fs.readFileSync(slow.pidFile, 'utf8'));
    process.kill(pid, 'SIGSTOP');
    try {
      for (const f of [slowFile, fastFile, localFile])
        fs.appendFileSync(f, claudeUser('a prompt typed upstream'));
      const started = Date.now();
      const check = t.gw.catalog.tick();
      // The local link and the other node's are recorded long before the stopped node times out.
      await waitFor(() => humanEvents(localKey).length === 1 && humanEvents(keys.fast).length === 1, 2000);
      expect(Date.now() - started).toBeLessThan(2500);
      await check;
      expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
      expect(humanEvents(keys.slow)).toHaveLength(0);
      expect(missing(keys.slow)).toHaveLength(0);
      expect(t.gw.catalog.nodes.list().find((x) => x.id === a.id)?.state).toBe('offline');
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    // The next check reaches a fresh node process and resumes from the marker.
    await t.gw.catalog.tick();
    expect(humanEvents(keys.slow)).toHaveLength(1);
    expect(humanEvents(keys.fast)).toHaveLength(1);
    expect(humanEvents(localKey)).toHaveLength(1);
  });
});
