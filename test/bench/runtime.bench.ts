// Benchmarks of the agent runtime (issue 3): turns per second of the scripted runtime with 100
// concurrent sessions, and the latency notice handling adds to a turn (drain + acknowledge, and a
// whole turn with vs. without a pending notice).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createGateway, type Gateway } from '../../electron/gateway/index';
import { silentLogger } from '../helpers/logger';

const SESSIONS = 100;
const TURNS_PER_SESSION = 20;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function open(): { gw: Gateway; dir: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-rt-'));
  const gw = createGateway({ dataDir: dir, autoStart: false, logger: silentLogger });
  gw.agents.save({ id: 'main', providerSettings: { stepMs: '0', steps: '1' }, heartbeatSeconds: 0 });
  return { gw, dir };
}

async function turnsPerSecond(): Promise<number> {
  const { gw, dir } = open();
  const keys = Array.from({ length: SESSIONS }, (_, i) => `agent:main:bench${i}`);
  for (const key of keys) gw.sessions.create({ key });
  const start = process.hrtime.bigint();
  // Each send queues a turn; all 100 sessions run concurrently, one turn at a time each.
  for (let round = 0; round < TURNS_PER_SESSION; round++) {
    await Promise.all(keys.map((k) => gw.human.send(k, `Any news on item ${round}?`)));
    await gw.runtime.idle();
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const turns = keys.reduce((n, k) => n + gw.runtime.runs(k, 1000).length, 0);
  gw.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return turns / seconds;
}

async function noticeLatency(): Promise<{ drainUs: number; plainMs: number; noticeMs: number }> {
  const { gw, dir } = open();
  const drains: number[] = [];
  const plain: number[] = [];
  const withNotice: number[] = [];
  for (let i = 0; i < 200; i++) {
    const watcher = `agent:main:w${i}`;
    const target = `agent:main:subagent:t${i}`;
    gw.sessions.create({ key: watcher });
    gw.sessions.create({ key: target, parentKey: watcher });
    gw.state.record({
      sessionKey: target,
      kind: 'child_spawned',
      actorType: 'agent',
      actorId: watcher,
      summary: 'child session spawned',
      watchers: [watcher],
    });
    // A turn without a notice.
    let t0 = process.hrtime.bigint();
    await gw.human.send(watcher, 'status?');
    await gw.runtime.idle();
    plain.push(Number(process.hrtime.bigint() - t0) / 1e6);
    // A human steps into the child: one notice; the watcher's next turn drains and reconciles.
    gw.state.record({
      sessionKey: target,
      kind: 'human_direct_message',
      actorType: 'human',
      summary: 'human message via desktop',
      watchers: [watcher],
    });
    const peeked = gw.notices.peek(watcher);
    t0 = process.hrtime.bigint();
    gw.notices.drain(watcher);
    drains.push(Number(process.hrtime.bigint() - t0) / 1e3);
    for (const e of peeked) gw.notices.enqueue(watcher, e);
    // Put the cursor back in its pending state so the turn below handles a real notice.
    gw.state.record({
      sessionKey: target,
      kind: 'human_direct_message',
      actorType: 'human',
      summary: 'human message via desktop',
      watchers: [watcher],
    });
    t0 = process.hrtime.bigint();
    await gw.human.send(watcher, 'status?');
    await gw.runtime.idle();
    withNotice.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  gw.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return { drainUs: median(drains), plainMs: median(plain), noticeMs: median(withNotice) };
}

export async function run(): Promise<Record<string, string | number>> {
  const tps = await turnsPerSecond();
  const n = await noticeLatency();
  return {
    [`scripted turns/s (${SESSIONS} concurrent sessions, ${SESSIONS * TURNS_PER_SESSION} turns)`]:
      Math.round(tps),
    'notice drain + acknowledge per turn, median (µs)': Number(n.drainUs.toFixed(1)),
    'turn without notice, median (ms)': Number(n.plainMs.toFixed(2)),
    'turn with notice (drain, session_status reconcile, reply), median (ms)': Number(n.noticeMs.toFixed(2)),
  };
}
