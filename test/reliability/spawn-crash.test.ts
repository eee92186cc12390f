// A spawn is one transaction (issue 13.4): a process killed between its writes (after the
// session row, after child_spawned, after the first message, after the run) leaves none of it;
// killed after the spawn returned, all of it. Native and ACP children alike.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../electron/gateway';
import { collectingLogger } from '../helpers/logger';
import { tempDir } from '../helpers/temp';
import { bundleWorker, workerEnv } from '../helpers/worker';
import { MAIN } from '../helpers/spec';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const AGENT = path.join(root, 'test', 'fixtures', 'acp-agent', 'agent.mjs');

let gw: Gateway | undefined;
let workDir: string;
let worker: string;
const RUNTIMES = ['native', 'acp'] as const;
const WRITES = ['sessions', 'session_state_events', 'session_messages', 'runs'];
/** `${runtime}:${table}` → [data dir, what the worker printed]: the workers run side by side. */
const outcomes = new Map<string, Promise<[string, string]>>();

beforeAll(async () => {
  workDir = tempDir('sightline-spawn-crash-worker-');
  worker = await bundleWorker(path.join(here, 'spawn-crash-worker.ts'), workDir);
  for (const runtime of RUNTIMES)
    for (const table of [...WRITES, 'none']) {
      const dir = tempDir('sightline-spawn-crash-');
      dirs.push(dir);
      const run = runWorker(dir, runtime, table).then((out): [string, string] => [dir, out]);
      run.catch(() => {}); // awaited (and reported) by its test
      outcomes.set(`${runtime}:${table}`, run);
    }
});
const dirs: string[] = [];
afterAll(() => {
  for (const d of [workDir, ...dirs.splice(0)]) fs.rmSync(d, { recursive: true, force: true });
});
afterEach(() => {
  gw?.close();
  gw = undefined;
});

function runWorker(dataDir: string, runtime: string, table: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [worker, dataDir, runtime, table, AGENT], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: workerEnv({ SIGHTLINE_SPAWN_CRASH: '1' }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    // 'close', not 'exit': only then has everything the worker printed been read.
    child.on('close', (code, signal) => {
      if (signal === 'SIGKILL') resolve(stdout);
      else reject(new Error(`worker exited (${code}) instead of being killed: ${stderr.slice(0, 2000)}`));
    });
  });
}

/** Everything in the database that belongs to a child of MAIN. */
function childFootprint(g: Gateway) {
  const db = g.db;
  const children = g.sessions.list().filter((s) => s.key !== MAIN);
  const count = (sql: string) => (db.prepare(sql).get(MAIN) as { n: number }).n;
  return {
    children,
    events: count(`SELECT count(*) AS n FROM session_state_events WHERE session_key <> ?`),
    messages: count(`SELECT count(*) AS n FROM session_messages WHERE session_key <> ?`),
    runs: count(`SELECT count(*) AS n FROM runs WHERE session_key <> ?`),
    cursors: count(`SELECT count(*) AS n FROM session_watch_cursors WHERE watcher_key = ?`),
  };
}

describe('a spawn killed between its writes leaves all of it or none', () => {
  for (const runtime of RUNTIMES) {
    for (const table of WRITES) {
      it(`${runtime}: killed right after the ${table} write → nothing of the child`, async () => {
        const [dir, out] = await outcomes.get(`${runtime}:${table}`)!;
        expect(out).toBe('');
        gw = createGateway({ dataDir: dir, autoStart: false, logger: collectingLogger() });
        expect(childFootprint(gw)).toEqual({ children: [], events: 0, messages: 0, runs: 0, cursors: 0 });
        expect(gw.db.pragma('integrity_check', { simple: true })).toBe('ok');
      });
    }

    it(`${runtime}: killed after the spawn returned → all of it, the parent's cursor seeded`, async () => {
      const [dir, printed] = await outcomes.get(`${runtime}:none`)!;
      const out = JSON.parse(printed) as {
        ok: true;
        details: { childSessionKey: string; runId: string; runtime: string };
      };
      expect(out).toMatchObject({ ok: true, details: { status: 'accepted', runtime } });
      const key = out.details.childSessionKey;
      expect(key).toMatch(
        runtime === 'acp' ? /^agent:main:acp:[0-9a-f]{8}$/ : /^agent:main:subagent:[0-9a-f]{8}$/,
      );
      gw = createGateway({ dataDir: dir, autoStart: false, logger: collectingLogger() });
      expect(childFootprint(gw)).toMatchObject({ events: 1, messages: 1, runs: 1, cursors: 1 });
      expect(gw.sessions.get(key)).toMatchObject({ key, parentKey: MAIN });
      const [spawned] = gw.state.changesSince(key, 0).events;
      expect(spawned).toMatchObject({ kind: 'child_spawned', actorType: 'agent', actorId: MAIN });
      expect(gw.state.cursor(MAIN, key)).toEqual({
        lastSeen: spawned!.sequence,
        notified: spawned!.sequence,
        material: spawned!.sequence,
      });
      expect(gw.transcripts.all(key).map((m) => [m.role, m.actorId, m.text])).toEqual([
        ['user', MAIN, 'crash me'],
      ]);
      // The queued run was cut short by the kill: the restart fails it, never resumes it silently.
      expect(gw.runtime.runs(key)).toEqual([
        expect.objectContaining({
          runId: out.details.runId,
          status: 'failed',
          error: 'interrupted by a restart',
        }),
      ]);
    });
  }
});
