// A paired node watches its adopted links' files and pushes (issue 31), over a real OpenSSH server
// (test/nodes/sshd.ts) and real timers: the catalog started, its first check 15 s away, so what
// is recorded within a second came from the node's file event. A human line appended on the
// node's transcript is recorded within 1 s, once; a deleted transcript is the link's first miss
// at once and no more; the node's inotify watches (read from /proc, the kernel's own count) go
// when the link leaves the watch set and when the connection closes. A node that pushes hostile
// `changed` frames is refused frame by frame, logged, and goes on being served.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adoptedKeyFor } from '../../shared/session-keys';
import { openTestGateway, tempDir, waitFor, type TestGateway } from '../helpers/gateway';
import { CLAUDE_ID, claudeUser, writeClaude } from '../catalog/fixtures';
import { makeNode, makeRoots, missingStreak, nodeBundle } from './helpers';
import { startSshd, type Sshd } from './sshd';

let sshd: Sshd;
let bundle: string;
let dir: string;

beforeAll(async () => {
  dir = tempDir('sightline-node-watch-');
  bundle = await nodeBundle();
  sshd = await startSshd(dir);
}, 60_000);
afterAll(() => {
  sshd?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The pids of the processes whose command line contains `needle`. */
function pidsOf(needle: string): number[] {
  return fs.readdirSync('/proc').flatMap((name) => {
    if (!/^\d+$/.test(name)) return [];
    try {
      return fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(needle) ? [Number(name)] : [];
    } catch {
      return [];
    }
  });
}

/** The inotify watches a process holds, as the kernel lists them. */
function inotifyWatches(pid: number): number {
  let n = 0;
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    let target = '';
    try {
      target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue;
    }
    if (target !== 'anon_inode:inotify') continue;
    n += fs
      .readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('inotify wd:')).length;
  }
  return n;
}

const events = (t: TestGateway, key: string, kind: string) =>
  t.gw.state.changesSince(key, 0).events.filter((e) => e.kind === kind);

/** How long `fn` takes to turn true, polled (real time: the node's event crosses SSH). */
async function msUntil(fn: () => boolean, what: string): Promise<number> {
  const t0 = performance.now();
  await waitFor(fn, 5000, what);
  return performance.now() - t0;
}

describe('a node over SSH watches its adopted links and pushes', () => {
  it('a human line on the node is recorded within a second; a deletion is the first miss at once; watchers go with the link and the connection', async () => {
    const file = writeClaude(path.join(sshd.home, '.claude', 'projects'));
    const t = openTestGateway({
      catalogRoots: makeRoots(tempDir('sightline-local-')),
      nodes: { sshCommand: ['ssh', '-F', sshd.config()], bundle, helloTimeoutMs: 15_000 },
    });
    try {
      const info = await t.gw.catalog.nodes.add({ ssh: 'sightline-test', name: 'remote' });
      const [pid, ...others] = pidsOf(`${sshd.home}/.sightline-node/sightline-node-`);
      expect(others).toEqual([]);
      expect(inotifyWatches(pid!)).toBe(0);
      const s = await t.gw.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID, hostId: info.id });
      expect(s.key).toBe(adoptedKeyFor('claude', CLAUDE_ID, info.id));
      t.gw.catalog.start();
      // Within a second the node holds the link and watches its transcript.
      await waitFor(() => inotifyWatches(pid!) === 1, 5000, 'the node watching the transcript');

      for (const text of ['please also check the refunds endpoint', 'and the invoices one']) {
        const before = events(t, s.key, 'human_direct_message').length;
        fs.appendFileSync(file, claudeUser(text));
        const ms = await msUntil(
          () => events(t, s.key, 'human_direct_message').length === before + 1,
          'the step-in recorded',
        );
        expect(ms).toBeLessThan(1000);
      }
      expect(events(t, s.key, 'human_direct_message').map((e) => e.payload)).toEqual([undefined, undefined]);

      // Deleted on the node: its first miss at once, never a second from events; the watcher goes.
      fs.rmSync(file);
      const ms = await msUntil(() => missingStreak(t.gw, s.key) === 1, 'the first miss');
      expect(ms).toBeLessThan(1000);
      await waitFor(() => inotifyWatches(pid!) === 0, 5000, 'the deleted file released');
      expect(events(t, s.key, 'upstream_missing')).toEqual([]);

      // Back again: watched again (at the next request), and a step-in recorded as before.
      writeClaude(path.join(sshd.home, '.claude', 'projects'));
      await t.gw.catalog.tick();
      expect(missingStreak(t.gw, s.key)).toBe(0);
      await waitFor(() => inotifyWatches(pid!) === 1, 5000, 'the transcript watched again');

      // The link leaves the watch set: the node releases its watcher within the next follow.
      t.gw.db.prepare('DELETE FROM catalog_upstream_links WHERE session_key = ?').run(s.key);
      await waitFor(() => inotifyWatches(pid!) === 0, 5000, 'the watcher released');
      expect(fs.existsSync(`/proc/${pid}`)).toBe(true);
    } finally {
      t.cleanup();
    }
  });

  it('a closed connection releases every watcher of the node', async () => {
    writeClaude(path.join(sshd.home, '.claude', 'projects'));
    const t = openTestGateway({
      catalogRoots: makeRoots(tempDir('sightline-local-')),
      nodes: { sshCommand: ['ssh', '-F', sshd.config()], bundle, helloTimeoutMs: 15_000 },
    });
    try {
      const info = await t.gw.catalog.nodes.add({ ssh: 'sightline-test' });
      const [pid] = pidsOf(`${sshd.home}/.sightline-node/sightline-node-`);
      await t.gw.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID, hostId: info.id });
      t.gw.catalog.start();
      await waitFor(() => inotifyWatches(pid!) === 1, 5000, 'the node watching the transcript');
      t.gw.catalog.nodes.remove(info.id);
      await waitFor(() => !fs.existsSync(`/proc/${pid}`) || inotifyWatches(pid!) === 0, 5000, 'released');
    } finally {
      t.cleanup();
    }
  });
});

/**
 * A node command that runs the real node and, before each `changed` frame of the node's, writes
 * hostile `changed` frames of its own into the same output.
 */
function hostileWrapper(command: string[], hostile: unknown[]): string[] {
  const file = path.join(dir, 'hostile-wrapper.mjs');
  fs.writeFileSync(
    file,
    `import { spawn } from 'node:child_process';
const node = spawn(process.argv[2], process.argv.slice(3), { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(node.stdin);
const frame = (o) => { const b = Buffer.from(JSON.stringify(o)); const h = Buffer.alloc(4); h.writeUInt32BE(b.length); return Buffer.concat([h, b]); };
const MAGIC = 'SIGHTLINE-NODE\\n';
let buf = Buffer.alloc(0);
let synced = false;
node.stdout.on('data', (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  if (!synced) {
    const at = buf.indexOf(MAGIC);
    if (at < 0) return;
    process.stdout.write(buf.subarray(0, at + MAGIC.length));
    buf = buf.subarray(at + MAGIC.length);
    synced = true;
  }
  while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
    const n = buf.readUInt32BE(0);
    const body = buf.subarray(4, 4 + n);
    if (JSON.parse(body.toString()).type === 'changed')
      for (const f of ${JSON.stringify(hostile)}) process.stdout.write(frame(f));
    process.stdout.write(buf.subarray(0, 4 + n));
    buf = buf.subarray(4 + n);
  }
});
node.on('exit', (code) => process.exit(code ?? 1));
`,
  );
  return [process.execPath, file, ...command];
}

describe('a node that pushes hostile frames', () => {
  it('is refused frame by frame, logged once per reason, and served: its real pushes still count', async () => {
    const node = await makeNode();
    const hostile = [
      { type: 'changed' },
      { type: 'changed', ids: [] },
      { type: 'changed', ids: ['1'] },
      { type: 'changed', ids: Array.from({ length: 2001 }, () => 1) },
      { type: 'changed', ids: [987654] },
      { type: 'changed', ids: [1], deleted: [2] },
      { type: 'changed', ids: [1], more: 'x'.repeat(100_000) },
    ];
    const t = openTestGateway({ catalogRoots: makeRoots(tempDir('sightline-local-')) });
    try {
      const file = writeClaude(node.roots.claude);
      const info = await t.gw.catalog.nodes.add({ command: hostileWrapper(node.command, hostile) });
      const s = await t.gw.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID, hostId: info.id });
      t.gw.catalog.start();
      // The wrapper and the node both name the node's data dir; the node holds the watch.
      await waitFor(
        () => pidsOf(node.dataDir).some((pid) => inotifyWatches(pid) === 1),
        5000,
        'the node watching the transcript',
      );
      for (const [n, text] of ['first', 'second'].entries()) {
        fs.appendFileSync(file, claudeUser(`${text} step-in`));
        await waitFor(
          () => events(t, s.key, 'human_direct_message').length === n + 1,
          5000,
          `the ${text} step-in recorded`,
        );
      }
      const refused = t.logger.lines.filter(
        (l) => l.msg === 'catalog: refused a changed frame from the node',
      );
      expect(refused.map((l) => [l.fields?.reason, l.fields?.refused])).toEqual([
        ['ids must be 1 to 2000 link numbers', 1],
        ['a link that is not watched on this connection', 1],
        ['deleted must be link numbers among ids', 1],
        ['a changed frame has only type, ids and deleted', 1],
      ]);
      expect(refused.every((l) => l.fields?.nodeId === info.id)).toBe(true);
      expect(t.gw.catalog.nodes.list()[0]).toMatchObject({ id: info.id, state: 'online' });
      expect(events(t, s.key, 'upstream_missing')).toEqual([]);
      expect(missingStreak(t.gw, s.key)).toBe(0);
    } finally {
      t.cleanup();
      fs.rmSync(node.dir, { recursive: true, force: true });
    }
  });
});
