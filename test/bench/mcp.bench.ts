// Benchmark of the session tools over MCP (issue 16): a session_status reconcile returning a full
// 200-event delta, called in process (`tools.call`) and through the MCP endpoint by the official
// SDK client over streamable HTTP (connected once, as an agent stays connected), and through the
// stdio shim. Same answer each way (checked), so the difference is the transport.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createGateway } from '../../electron/gateway/index';
import { httpClient, stdioClient } from '../mcp/helpers';
import { silentLogger } from '../helpers/logger';

const EVENTS = 250;
const WARMUP = 20;
const ROUNDS = 200;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function timed(fn: () => Promise<unknown>, rounds: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < WARMUP; i++) await fn();
  for (let i = 0; i < rounds; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    out.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return out;
}

export async function run(): Promise<Record<string, string | number>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-mcp-'));
  const gw = createGateway({ dataDir: dir, autoStart: false, logger: silentLogger });
  const caller = 'agent:main:watcher';
  const target = 'agent:main:subagent:busy';
  gw.sessions.create({ key: caller });
  gw.sessions.create({ key: target, parentKey: caller });
  for (let i = 0; i < EVENTS; i++) {
    gw.state.record({
      sessionKey: target,
      kind: 'goal_changed',
      actorType: 'human',
      summary: 'goal objective changed',
    });
  }
  const since = gw.state.version(target) - EVENTS; // the first event: 249 follow, 200 come back
  const args = { sessionKey: target, changesSince: since };

  const inProcess = await gw.tools.call(caller, 'session_status', args);
  if (!inProcess.ok) throw new Error(inProcess.error);
  const events = (inProcess.details as { stateChanges: { events: unknown[] } }).stateChanges.events.length;
  if (events !== 200) throw new Error(`expected a 200-event delta, got ${events}`);

  const issued = await gw.mcp.issue(caller);
  const http = await httpClient(issued.url, issued.secret, 'bench');
  const stdio = await stdioClient(issued.command!, issued.secret, 'bench-stdio');
  for (const c of [http, stdio]) {
    const r = await c.call('session_status', args);
    if (JSON.stringify(r.structuredContent) !== JSON.stringify(inProcess.details))
      throw new Error('the MCP answer differs from the in-process one');
  }

  const local = median(await timed(() => gw.tools.call(caller, 'session_status', args), ROUNDS));
  const overHttp = median(await timed(() => http.call('session_status', args), ROUNDS));
  const overStdio = median(await timed(() => stdio.call('session_status', args), ROUNDS / 2));
  const bytes = Buffer.byteLength(inProcess.text);

  await http.close();
  await stdio.close();
  gw.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return {
    'session_status, 200-event delta, in process (tools.call), median ms': local,
    'same through MCP, streamable HTTP (SDK client), median ms': overHttp,
    'same through MCP, stdio shim → HTTP, median ms': overStdio,
    'MCP HTTP / in process': `${(overHttp / local).toFixed(1)}×`,
    'answer size (tool text), KiB': bytes / 1024,
  };
}
