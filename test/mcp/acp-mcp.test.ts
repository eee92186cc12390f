// ACP agents as coordinators and watchers through MCP, with the fixture ACP agent as a real
// process and a real MCP client (the SDK's): it spawns a native child, hears (once) that a person
// stepped into it, reconciles through MCP and gets the exact delta; it sends with watch: true; it
// is always itself; its credential ends with its agent, a revoke and its session.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SYSTEM_NOTE_CLOSE, SYSTEM_NOTE_OPEN } from '../../electron/gateway/runtime/system-note';
import { openTestGateway, tempDir, waitFor, type TestGateway } from '../helpers/gateway';
import { MAIN, noticeText } from '../helpers/spec';

const AGENT = path.resolve('test/fixtures/acp-agent/agent.mjs');
const OTHER = 'agent:main:other';
let t: TestGateway;
afterEach(() => t?.cleanup());

function setup(env: Record<string, string> = {}) {
  t = openTestGateway();
  t.gw.agents.save({ id: 'main', providerSettings: { stepMs: '1', steps: '1' } });
  t.gw.acp.profiles.save({
    id: 'fixture',
    name: 'Fixture agent',
    command: process.execPath,
    args: [AGENT],
    env,
    allowAgents: true, // issue 14.3: agents start only profiles allowed for agents
  });
  t.gw.sessions.create({ key: OTHER, label: 'unrelated' });
  return t.gw;
}

/** Newest first. */
const runs = (key: string) => t.gw.runtime.runs(key);
const settled = (key: string, count: number) => () =>
  runs(key).length >= count && runs(key).every((r) => ['idle', 'failed', 'cancelled'].includes(r.status));

/** The agent's first reply after message `afterId`, parsed as the JSON the fixture says. */
function replyAfter(key: string, afterId = 0): Record<string, unknown> {
  const m = t.gw.transcripts.all(key).find((x) => x.id > afterId && x.role === 'assistant' && x.text);
  if (!m) throw new Error(`no reply in ${key}`);
  return JSON.parse(m.text) as Record<string, unknown>;
}
const lastId = (key: string) => t.gw.transcripts.all(key).at(-1)?.id ?? 0;

async function spawnAcp(
  task: string,
  profile = 'fixture',
): Promise<{ key: string; reply: Record<string, unknown> }> {
  const r = await t.gw.tools.call(MAIN, 'sessions_spawn', { task, runtime: 'acp', profile });
  if (!r.ok) throw new Error(r.error);
  const key = (r.details as { childSessionKey: string }).childSessionKey;
  await waitFor(settled(key, 1), 15_000, `first run of ${key}`);
  return { key, reply: replyAfter(key) };
}

/** A prompt to the ACP session from the person, and its run to the end. */
async function prompt(key: string, text: string): Promise<Record<string, unknown>> {
  const before = runs(key).length;
  const after = lastId(key);
  await t.gw.human.send(key, text);
  await waitFor(settled(key, before + 1), 15_000, `run of ${key}: ${text.slice(0, 40)}`);
  return replyAfter(key, after);
}

describe('an ACP parent through MCP', () => {
  it('spawns a native child, hears once that a person stepped in, and reconciles the exact delta', async () => {
    const gw = setup();
    const { key: parent, reply } = await spawnAcp(
      'mcp sessions_spawn {"task":"collect the numbers","runtime":"native"}',
    );
    const spawned = reply as { structured: { childSessionKey: string; runtime: string } };
    expect(spawned.structured).toMatchObject({ status: 'accepted', runtime: 'native' });
    const child = spawned.structured.childSessionKey;
    expect(child).toMatch(/^agent:main:subagent:[0-9a-f]{8}$/);
    expect(gw.sessions.get(child)?.parentKey).toBe(parent);

    // The spawn edge is exactly a native parent's: child_spawned by the ACP parent seeds its cursor.
    const seeded = gw.state.changesSince(child, 0).events[0]!;
    expect(seeded).toMatchObject({ kind: 'child_spawned', actorType: 'agent', actorId: parent });
    expect(gw.state.cursor(parent, child)).toEqual({
      lastSeen: seeded.sequence,
      notified: seeded.sequence,
      material: seeded.sequence,
    });
    await gw.runtime.idle();
    await waitFor(settled(parent, 2), 15_000, 'the announcement turn of the ACP parent');

    // A person steps into the child: one notice for the ACP parent, which is not woken.
    const parentRuns = runs(parent).length;
    await gw.human.send(child, 'Use the second data set instead.');
    await gw.runtime.idle();
    const notice = noticeText(child, seeded.sequence);
    expect(gw.notices.peek(parent).map((e) => e.text)).toEqual([notice]);
    expect(gw.waker.lastWakeAt(parent)).toBeUndefined();
    expect(runs(parent)).toHaveLength(parentRuns);

    // Its next turn carries exactly that one line, and it reconciles through MCP.
    const reconciled = (await prompt(parent, 'mcp-reconcile')) as {
      notices: string[];
      reconciled: { isError: boolean; structured: unknown }[];
    };
    expect(reconciled.notices).toEqual([notice]);
    expect(reconciled.reconciled).toHaveLength(1);
    const inProcess = await gw.tools.call(parent, 'session_status', {
      sessionKey: child,
      changesSince: seeded.sequence,
    });
    if (!inProcess.ok) throw new Error(inProcess.error);
    expect(reconciled.reconciled[0]).toEqual({
      isError: false,
      text: inProcess.text,
      structured: inProcess.details,
    });
    const delta = (inProcess.details as { stateChanges: { events: { kind: string; actorType: string }[] } })
      .stateChanges.events;
    expect(delta.at(-1)).toMatchObject({ kind: 'human_direct_message', actorType: 'human' });

    // Drained means acknowledged, and only once.
    const cursor = gw.state.cursor(parent, child)!;
    expect(cursor.lastSeen).toBe(cursor.notified);
    expect(gw.notices.peek(parent)).toEqual([]);
    expect(await prompt(parent, 'mcp-reconcile')).toEqual({ notices: [], reconciled: [] });

    // The transcript shows the note and the MCP call like a built-in agent's tool call.
    const messages = gw.transcripts.all(parent);
    const note = messages.find((m) => m.role === 'system' && m.text.includes(notice))!;
    expect(note.text).toBe(`${SYSTEM_NOTE_OPEN}\n${notice}\n${SYSTEM_NOTE_CLOSE}`);
    const call = messages.find(
      (m) => m.id > note.id && m.role === 'assistant' && m.toolCalls?.[0]?.name === 'session_status',
    )!;
    expect(call.toolCalls![0]!.arguments).toEqual({ sessionKey: child, changesSince: seeded.sequence });
    const result = messages.find((m) => m.role === 'tool' && m.toolCallId === call.toolCalls![0]!.id)!;
    expect(result).toMatchObject({ toolName: 'session_status', text: inProcess.text });
  });

  it('as a coordinator it sends with watch: true to an unrelated session and is always itself', async () => {
    const gw = setup();
    const { key: acp, reply } = await spawnAcp(
      `mcp sessions_send {"sessionKey":"${OTHER}","message":"hello","watch":true}`,
    );
    expect(reply).toMatchObject({
      isError: false,
      structured: { status: 'delivered', sessionKey: OTHER, watched: true },
    });
    expect(gw.state.cursor(acp, OTHER)).toBeDefined();
    expect(gw.state.cursor(MAIN, OTHER)).toBeUndefined();

    // A forged caller in the arguments changes nothing: the goal is its own, the actor itself.
    const forged = await prompt(
      acp,
      `mcp goal_set {"objective":"mine","callerSessionKey":"${MAIN}","caller":"${OTHER}"}`,
    );
    expect(forged).toMatchObject({ isError: false });
    expect(gw.goals.get(acp)?.objective).toBe('mine');
    expect(gw.goals.get(MAIN)).toBeUndefined();
    expect(gw.goals.get(OTHER)).toBeUndefined();

    // A secret that is not a live credential (made up, or another session's after it was
    // deleted) acts as no one: 401.
    expect(await prompt(acp, `mcp-as slmcp_${'A'.repeat(43)} sessions_list {}`)).toMatchObject({ code: 401 });
    gw.sessions.create({ key: 'agent:main:short-lived' });
    const other = await gw.mcp.issue('agent:main:short-lived');
    gw.sessions.delete('agent:main:short-lived');
    expect(await prompt(acp, `mcp-as ${other.secret} goal_set {"objective":"not mine"}`)).toMatchObject({
      code: 401,
    });

    // Its credential is listed with label acp and the agent's client name; a revoke refuses it.
    const [credential] = gw.mcp.list(acp);
    expect(credential).toMatchObject({
      sessionKey: acp,
      label: 'acp',
      kind: 'acp',
      client: 'sightline-fixture-agent',
    });
    gw.mcp.revoke(credential!.id);
    expect(await prompt(acp, 'mcp sessions_list {}')).toMatchObject({ code: 401 });

    // Gone with the session.
    gw.sessions.delete(acp);
    expect(gw.mcp.list(acp)).toEqual([]);
  });

  it('spawns an ACP child through MCP; the child`s outcome is the ACP parent`s next prompt', async () => {
    const gw = setup();
    const { key: parent, reply } = await spawnAcp(
      'mcp sessions_spawn {"task":"answer from the grandchild","runtime":"acp","profile":"fixture"}',
    );
    const child = (reply as { structured: { childSessionKey: string; runtime: string } }).structured;
    expect(child.runtime).toBe('acp');
    expect(gw.sessions.get(child.childSessionKey)?.parentKey).toBe(parent);
    const seeded = gw.state.changesSince(child.childSessionKey, 0).events[0]!;
    expect(seeded).toMatchObject({ kind: 'child_spawned', actorId: parent });
    expect(gw.state.cursor(parent, child.childSessionKey)?.lastSeen).toBe(seeded.sequence);
    // The grandchild's run ends: the ACP parent gets a turn of its own with the announcement.
    await waitFor(settled(parent, 2), 20_000, 'the announcement turn');
    const announced = gw.transcripts
      .all(parent)
      .find((m) => m.role === 'system' && m.text.includes(`[child run completed] ${child.childSessionKey}`));
    expect(announced?.text).toContain('You said: answer from the grandchild');
    // It reads the child's history and lists the fleet through MCP, as itself.
    const history = (await prompt(
      parent,
      `mcp sessions_history {"sessionKey":"${child.childSessionKey}"}`,
    )) as {
      structured: { messages: { role: string; actorId?: string }[] };
    };
    expect(history.structured.messages[0]).toMatchObject({ role: 'user', actorId: parent });
    const list = (await prompt(parent, 'mcp sessions_list {}')) as {
      structured: { sessions: { key: string }[] };
    };
    expect(list.structured.sessions.map((x) => x.key)).toEqual(
      expect.arrayContaining([MAIN, parent, child.childSessionKey, OTHER]),
    );
  });

  it('gets the server over HTTP when the agent takes it, else through the stdio shim', async () => {
    const gw = setup({ ACP_FIXTURE_MCP: 'stdio' });
    const { key: acp, reply: viaStdio } = await spawnAcp('mcp-servers');
    const { url } = await gw.mcp.endpoint();
    expect(viaStdio).toEqual({
      takesHttpMcp: false,
      servers: [
        {
          transport: 'stdio',
          name: 'sightline',
          command: process.execPath,
          args: [path.resolve('electron/gateway/mcp/stdio-shim.mjs'), url],
          env: ['SIGHTLINE_MCP_SECRET'],
        },
      ],
    });
    expect(await prompt(acp, 'mcp-tools')).toContain('session_status');
    expect(await prompt(acp, 'mcp goal_set {"objective":"via the shim"}')).toMatchObject({ isError: false });
    expect(gw.goals.get(acp)?.objective).toBe('via the shim');

    gw.acp.profiles.save({
      id: 'http',
      name: 'HTTP fixture',
      command: process.execPath,
      args: [AGENT],
      env: {},
      allowAgents: true, // issue 14.3: agents start only profiles allowed for agents
    });
    const { key, reply: viaHttp } = await spawnAcp('mcp-servers', 'http');
    expect(viaHttp).toEqual({
      takesHttpMcp: true,
      servers: [{ transport: 'http', name: 'sightline', url, headers: ['Authorization'] }],
    });
    // Each child has its own credential, of its own session.
    expect(
      gw.mcp
        .list()
        .map((c) => [c.sessionKey, c.label])
        .sort(),
    ).toEqual(
      [
        [acp, 'acp'],
        [key, 'acp'],
      ].sort(),
    );
  });

  it('a session the person starts gets its server too: the credential is saved with the session', async () => {
    const gw = setup();
    const info = await gw.sessions.start({
      acpProfileId: 'fixture',
      cwd: tempDir(),
      message: 'mcp goal_set {"objective":"started from the app"}',
    });
    await waitFor(settled(info.key, 1), 15_000, `first run of ${info.key}`);
    expect(replyAfter(info.key)).toMatchObject({ isError: false });
    expect(gw.goals.get(info.key)?.objective).toBe('started from the app');
    expect(gw.mcp.list().map((c) => [c.sessionKey, c.label])).toEqual([[info.key, 'acp']]);
    gw.sessions.delete(info.key);
    expect(gw.mcp.list()).toEqual([]);
  });

  it('a turn that fails to start drains nothing: the notice comes with the next turn', async () => {
    const flag = path.join(tempDir(), 'no-sessions');
    const gw = setup({ ACP_FIXTURE_FAIL_SESSION_IF: flag });
    const { key: parent, reply } = await spawnAcp('mcp sessions_spawn {"task":"work","runtime":"native"}');
    const child = (reply as { structured: { childSessionKey: string } }).structured.childSessionKey;
    const seq = gw.state.changesSince(child, 0).events[0]!.sequence;
    await gw.runtime.idle();
    await waitFor(settled(parent, 2), 15_000, 'announcement turn');
    // The agent goes away; its next start will fail at session/new.
    await prompt(parent, 'crash').catch(() => undefined);
    await waitFor(settled(parent, 3), 15_000, 'crash');
    expect(gw.mcp.list(parent)).toEqual([]);
    fs.writeFileSync(flag, '');
    await gw.human.send(child, 'stepping in');
    await gw.runtime.idle();
    const before = gw.state.cursor(parent, child)!;

    await gw.human.send(parent, 'mcp-reconcile');
    await waitFor(() => runs(parent)[0]?.status === 'failed', 15_000, 'failed start');
    expect(runs(parent)[0]?.error).toMatch(/no sessions today/);
    expect(gw.notices.peek(parent).map((e) => e.text)).toEqual([noticeText(child, seq)]);
    expect(gw.state.cursor(parent, child)).toEqual(before);

    fs.rmSync(flag);
    const reconciled = (await prompt(parent, 'mcp-reconcile')) as { notices: string[] };
    expect(reconciled.notices).toEqual([noticeText(child, seq)]);
  });
});
