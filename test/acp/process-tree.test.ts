// No process outlives its session: an agent's whole process tree (the agent and what it started,
// as an adapter starts its CLI) is gone after the session is deleted, after the agent crashed
// mid-turn, and after the gateway closed. Checked in /proc, not through the child handle. A cancel
// keeps a cooperative agent (and its conversation) for the next prompt.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { alive } from '../../electron/gateway/runtime/acp/process-tree';
import { openTestGateway, tempDir, waitFor, type TestGateway } from '../helpers/gateway';
import { MAIN } from '../helpers/spec';

const AGENT = path.resolve('test/fixtures/acp-agent/agent.mjs');
let t: TestGateway | undefined;
let folders: string[] = [];
afterEach(() => {
  t?.cleanup();
  t = undefined;
  for (const f of folders) fs.rmSync(f, { recursive: true, force: true });
  folders = [];
});

const status = (key: string) => t!.gw.runtime.sessionStatus(key);
const reply = (key: string) =>
  t!.gw.transcripts
    .all(key)
    .filter((m) => m.role === 'assistant')
    .map((m) => m.text)
    .pop();

/** A session whose agent started a grandchild; resolves with both pids once the first turn ended. */
async function family(grandchild: '1' | 'own-group' = '1') {
  t = openTestGateway();
  t.gw.acp.profiles.save({
    id: 'fixture',
    name: 'Fixture agent',
    command: process.execPath,
    args: [AGENT],
    env: { ACP_FIXTURE_GRANDCHILD: grandchild },
  });
  const cwd = fs.realpathSync(tempDir());
  folders.push(cwd);
  const { key } = await t.gw.sessions.start({
    acpProfileId: 'fixture',
    cwd,
    message: 'family',
    parentKey: MAIN,
  });
  await waitFor(() => status(key) === 'idle', 10_000, 'the first run');
  const pids = JSON.parse(reply(key)!) as { agent: number; grandchild: number };
  expect(alive(pids.agent)).toBe(true);
  expect(alive(pids.grandchild)).toBe(true);
  return { key, pids, gone: () => !alive(pids.agent) && !alive(pids.grandchild) };
}

describe('no process outlives its session', () => {
  it('deleting the session stops the agent and what it started', async () => {
    const { key, gone } = await family();
    t!.gw.sessions.delete(key);
    await waitFor(gone, 5_000, 'the process tree to end');
  });

  it('a grandchild in a process group of its own goes too', async () => {
    const { key, gone } = await family('own-group');
    t!.gw.sessions.delete(key);
    await waitFor(gone, 5_000, 'the process tree to end');
  });

  it('an agent killed mid-turn fails the run with the reason, and its grandchild goes', async () => {
    const { key, pids, gone } = await family();
    await t!.gw.human.send(key, 'hold');
    await waitFor(() => t!.gw.live.snapshot(key)?.text === 'holding', 5_000, 'the agent holding its turn');
    process.kill(pids.agent, 'SIGKILL');
    await waitFor(() => status(key) === 'failed', 5_000, 'the failed run');
    expect(t!.gw.runs.list(key).pop()).toMatchObject({
      status: 'failed',
      outcome: 'error',
      error: 'agent process was killed by SIGKILL',
    });
    await waitFor(gone, 5_000, 'the process tree to end');
  });

  it('closing the gateway stops every tree', async () => {
    const { gone } = await family();
    t!.cleanup();
    t = undefined;
    await waitFor(gone, 5_000, 'the process tree to end');
  });

  it('a cancel ends the run cancelled and keeps a cooperative agent for the next prompt', async () => {
    const { key, pids } = await family();
    await t!.gw.human.send(key, 'hold');
    await waitFor(() => t!.gw.live.snapshot(key)?.text === 'holding', 5_000, 'the agent holding its turn');
    expect(t!.gw.runtime.cancel(key)).toBe(true);
    await waitFor(() => status(key) === 'cancelled', 5_000, 'the cancelled run');
    expect(alive(pids.agent)).toBe(true);
    await t!.gw.human.send(key, 'family');
    await waitFor(() => status(key) === 'idle', 5_000, 'the next run');
    expect(JSON.parse(reply(key)!)).toEqual(pids);
  });
});
