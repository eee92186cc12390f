// An agent that connects to its MCP servers during session/new (Claude Code does) gets Sightline's
// session tools whichever way it was started: by a person (`sessions.start`, which starts the agent
// before its session is committed) or by a coordinator (`sessions_spawn`). The credential is valid
// before session/new is sent, and gone again when the start fails.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openTestGateway, tempDir, waitFor, type TestGateway } from '../helpers/gateway';
import { MAIN } from '../helpers/spec';

const AGENT = path.resolve('test/fixtures/acp-agent/agent.mjs');
let t: TestGateway;
let folders: string[] = [];
afterEach(() => {
  t?.cleanup();
  for (const f of folders) fs.rmSync(f, { recursive: true, force: true });
  folders = [];
});

function setup(env: Record<string, string> = {}) {
  t = openTestGateway();
  t.gw.acp.profiles.save({
    id: 'eager',
    name: 'Eager agent',
    command: process.execPath,
    args: [AGENT],
    env: { ACP_FIXTURE_MCP_EAGER: '1', ...env },
    allowAgents: true,
  });
  const cwd = fs.realpathSync(tempDir());
  folders.push(cwd);
  return { gw: t.gw, cwd };
}

const settled = (key: string) => () =>
  ['idle', 'failed', 'cancelled'].includes(t.gw.runtime.sessionStatus(key));
const lastReply = (key: string) =>
  t.gw.transcripts
    .all(key)
    .filter((m) => m.role === 'assistant')
    .map((m) => m.text)
    .pop();
const TOOLS = ['session_status', 'sessions_list'];

describe('the start path and MCP', () => {
  it('a person-started agent that lists its tools during session/new gets them', async () => {
    const { gw, cwd } = setup();
    const info = await gw.sessions.start({
      acpProfileId: 'eager',
      cwd,
      message: 'mcp-tools',
      parentKey: MAIN,
    });
    await waitFor(settled(info.key), 15_000, 'the first run');
    expect(gw.runs.list(info.key).map((r) => r.status)).toEqual(['idle']);
    const listed = JSON.parse(lastReply(info.key)!) as string[];
    for (const name of TOOLS) expect(listed).toContain(name);
    // Its credential is one, of its own session, for as long as its agent runs.
    expect(gw.mcp.list(info.key).map((c) => [c.sessionKey, c.kind])).toEqual([[info.key, 'acp']]);
  });

  it('an agent spawned by a coordinator gets them the same way', async () => {
    const { gw } = setup();
    const r = await gw.tools.call(MAIN, 'sessions_spawn', {
      task: 'mcp-tools',
      runtime: 'acp',
      profile: 'eager',
    });
    expect(r.ok).toBe(true);
    const key = (r as { details: { childSessionKey: string } }).details.childSessionKey;
    await waitFor(settled(key), 15_000, 'the first run');
    const listed = JSON.parse(lastReply(key)!) as string[];
    for (const name of TOOLS) expect(listed).toContain(name);
  });

  it('a start that fails after the credential was made leaves no credential and no session', async () => {
    const { gw, cwd } = setup({ ACP_FIXTURE_START: 'fail-session' });
    const before = gw.sessions.list().length;
    await expect(
      gw.sessions.start({ acpProfileId: 'eager', cwd, message: 'hello', parentKey: MAIN }),
    ).rejects.toThrow('no sessions today');
    expect(gw.sessions.list()).toHaveLength(before);
    expect(gw.mcp.list()).toEqual([]);
  });
});
