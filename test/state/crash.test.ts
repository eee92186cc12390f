// A process killed in the middle of appending (SIGKILL, no clean-up) leaves no partial state:
// every committed event has its head and its cursor updates, and nothing else exists.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp';
import { openHarness, type Harness } from './helpers';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
let dir: string | undefined;
let h: Harness | undefined;
afterEach(() => {
  h?.dispose();
  h = undefined;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function killMidWrite(dataDir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(here, 'fixtures', 'crash-writer.ts'), dataDir],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      if (d.toString().includes('ready')) setTimeout(() => child.kill('SIGKILL'), 150);
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve();
      else reject(new Error(`writer exited early (${code}): ${stderr.slice(0, 2000)}`));
    });
  });
}

it('SIGKILL during appends leaves heads, events and cursors consistent', async () => {
  dir = tempDir();
  await killMidWrite(dir);
  h = openHarness({ dir });
  dir = undefined; // the harness removes it
  const { gw } = h;
  const n = (gw.db.prepare('SELECT count(*) AS n FROM session_state_events').get() as { n: number }).n;
  expect(n).toBeGreaterThanOrEqual(200);
  // Sequences are dense 1..n: no committed gap, nothing half-inserted.
  expect(
    gw.db.prepare('SELECT min(sequence) AS lo, max(sequence) AS hi FROM session_state_events').get(),
  ).toEqual({ lo: 1, hi: n });
  // Each head is exactly the newest event of its session.
  const heads = gw.db
    .prepare(
      `SELECT h.session_key, h.last_sequence AS head, (SELECT max(sequence) FROM session_state_events e WHERE e.session_key = h.session_key) AS newest
       FROM session_state_heads h`,
    )
    .all() as { session_key: string; head: number; newest: number }[];
  expect(heads).toHaveLength(10);
  expect(heads.filter((r) => r.head !== r.newest)).toEqual([]);
  // Each cursor's M is exactly the newest notify-eligible event of its target.
  const cursors = gw.db
    .prepare(
      `SELECT c.watcher_key, c.target_key, c.material,
         (SELECT max(sequence) FROM session_state_events e WHERE e.session_key = c.target_key AND e.kind = 'human_direct_message') AS newest
       FROM session_watch_cursors c`,
    )
    .all() as { material: number; newest: number }[];
  expect(cursors).toHaveLength(30);
  expect(cursors.filter((c) => c.material !== c.newest)).toEqual([]);
  // The writer never acknowledged anything: every cursor is pending, N frozen at the first event.
  const firsts = gw.db
    .prepare(
      `SELECT count(*) AS bad FROM session_watch_cursors c WHERE c.last_seen != 0 OR c.notified !=
         (SELECT min(sequence) FROM session_state_events e WHERE e.session_key = c.target_key AND e.kind = 'human_direct_message')`,
    )
    .get();
  expect(firsts).toEqual({ bad: 0 });
  // The log continues after the crash.
  const next = gw.state.record({
    sessionKey: 'agent:main:subagent:t0',
    kind: 'compacted',
    actorType: 'system',
    summary: 'session compacted',
  });
  expect(next?.sequence).toBe(n + 1);
}, 60_000); // a child process under tsx starts slowly on a busy 2-core machine
