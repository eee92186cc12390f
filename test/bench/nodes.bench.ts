// Benchmark of the upstream monitor over a paired node (issue 19): one check over 1,000 idle
// adopted Claude sessions on one node (a real node process, the bundled file, over its stdio)
// beside one check over 1,000 idle local ones, each in its own gateway. Goal: remote ≤ 3× local.
import fs from 'node:fs';
import path from 'node:path';
import { openTestGateway, type TestGateway } from '../helpers/gateway';
import { tempDir } from '../helpers/temp';
import { CLAUDE_ID, claudeAssistant, claudeUser } from '../catalog/fixtures';
import { makeNode, makeRoots } from '../nodes/helpers';

const SESSIONS = 1000;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** SESSIONS idle Claude sessions under `root`; their thread ids. */
function writeSessions(root: string): string[] {
  const dir = path.join(root, '-bench');
  fs.mkdirSync(dir, { recursive: true });
  const ids: string[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const id = CLAUDE_ID.slice(0, -6) + String(i).padStart(6, '0');
    fs.writeFileSync(path.join(dir, `${id}.jsonl`), claudeUser(`task ${i}`) + claudeAssistant('ok'));
    ids.push(id);
  }
  return ids;
}

async function checkMs(t: TestGateway): Promise<number> {
  for (let r = 0; r < 5; r++) await t.gw.catalog.tick(); // warm-up (JIT, page cache)
  const times: number[] = [];
  for (let r = 0; r < 21; r++) {
    const start = performance.now();
    await t.gw.catalog.tick();
    times.push(performance.now() - start);
  }
  return median(times);
}

export async function run(): Promise<Record<string, string | number>> {
  const localRoots = makeRoots(tempDir('sightline-bench-local-'));
  const local = openTestGateway({ catalogRoots: localRoots });
  const node = await makeNode();
  const remote = openTestGateway({ catalogRoots: makeRoots(tempDir('sightline-bench-empty-')) });
  try {
    for (const id of writeSessions(localRoots.claude))
      local.gw.catalog.adopt({ provider: 'claude', threadId: id });
    const ids = writeSessions(node.roots.claude);
    const info = await remote.gw.catalog.nodes.add({ command: node.command });
    for (const id of ids)
      await remote.gw.catalog.adopt({ provider: 'claude', threadId: id, hostId: info.id });

    const localMs = await checkMs(local);
    const remoteMs = await checkMs(remote);
    const humans = remote.gw.state
      .changesSince(`agent:main:adopted:claude@${info.id}:${ids[0]}`, 0)
      .events.filter((e) => e.kind === 'human_direct_message').length;
    if (humans !== 0) throw new Error(`idle remote sessions recorded ${humans} human events`);
    return {
      'nodes: one check, 1,000 idle local links (median ms)': Number(localMs.toFixed(1)),
      'nodes: one check, 1,000 idle remote links on one node (median ms)': Number(remoteMs.toFixed(1)),
      'nodes: remote / local (goal ≤ 3)': Number((remoteMs / localMs).toFixed(2)),
    };
  } finally {
    local.cleanup();
    remote.cleanup();
    fs.rmSync(node.dir, { recursive: true, force: true });
  }
}
