// sessions.start (contract): a person starts a session running a model agent or an ACP agent,
// through the one spawn path. The fixture ACP agent runs as a real process.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openTestGateway, tempDir, waitFor, type TestGateway } from '../helpers/gateway';
import { MAIN, noticeText } from '../helpers/spec';

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
    id: 'fixture',
    name: 'Fixture agent',
    command: process.execPath,
    args: [AGENT],
    env,
  });
  return t.gw;
}

function folder(): string {
  const dir = fs.realpathSync(tempDir());
  folders.push(dir);
  return dir;
}

const settled = (key: string) => () =>
  ['idle', 'failed', 'cancelled'].includes(t.gw.runtime.sessionStatus(key));

describe('sessions.start', () => {
  it('starts an ACP agent in a folder, the person spawning it, and the parent gets one notice', async () => {
    const gw = setup();
    const cwd = folder();
    const info = await gw.sessions.start({
      acpProfileId: 'fixture',
      cwd,
      label: 'Fix the build',
      message: 'stream please',
      parentKey: MAIN,
    });
    expect(info.key).toMatch(/^agent:main:acp:[0-9a-f]{8}$/);
    expect(info).toMatchObject({ parentKey: MAIN, label: 'Fix the build', cwd });
    // Resolved once the first turn started: the run is no longer queued.
    const runs = gw.runs.list(info.key);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.status).not.toBe('queued');

    const events = gw.state.changesSince(info.key, 0).events;
    expect(events.map((e) => [e.kind, e.actorType, e.actorId])).toEqual([
      ['child_spawned', 'human', 'local-user'],
      ['human_direct_message', 'human', 'local-user'],
    ]);
    const seeded = events[0]!.sequence;
    expect(gw.state.cursor(MAIN, info.key)).toEqual({
      lastSeen: seeded,
      notified: seeded + 1,
      material: seeded + 1,
    });
    expect(gw.notices.peek(MAIN).map((n) => n.text)).toEqual([noticeText(info.key, seeded)]);

    await waitFor(settled(info.key), 8000, 'first run');
    const transcript = gw.transcripts.all(info.key);
    expect(transcript[0]).toMatchObject({ role: 'user', actorType: 'human', text: 'stream please' });
    expect(transcript.some((m) => m.role === 'assistant' && m.text.includes('Done.'))).toBe(true);
    expect(gw.runs.list(info.key).map((r) => r.status)).toEqual(['idle']);

    // A second human message: the parent's notice is still the one pending (coalesced).
    await gw.human.send(info.key, 'answer again');
    expect(gw.notices.peek(MAIN)).toHaveLength(1);
    await waitFor(() => gw.runs.list(info.key).length === 2 && settled(info.key)(), 8000, 'second run');
    // runs.list: oldest first.
    const [first, second] = gw.runs.list(info.key);
    expect(first!.startedAt).toBeLessThanOrEqual(second!.startedAt);
    expect(gw.transcripts.all(info.key).at(-1)!.text).toBe('You said: answer again');
  });

  it('starts a model agent as its sub-agent and resolves once the turn runs', async () => {
    const gw = setup();
    gw.agents.save({
      id: 'writer',
      name: 'Writer',
      provider: 'scripted',
      providerSettings: { stepMs: '20' },
    });
    const cwd = folder();
    const info = await gw.sessions.start({ agentId: 'writer', cwd, message: 'Write the release notes' });
    expect(info.key).toMatch(/^agent:writer:subagent:[0-9a-f]{8}$/);
    expect(info.parentKey).toBeUndefined();
    expect(info.cwd).toBe(cwd);
    expect(gw.runs.list(info.key)[0]!.status).toBe('running');
    // No parent and no watcher: the human turn's gate records nothing, as for human.send.
    expect(gw.state.changesSince(info.key, 0).events.map((e) => e.kind)).toEqual(['child_spawned']);
    await waitFor(settled(info.key), 8000, 'worker run');
    expect(gw.transcripts.all(info.key).at(-1)!.text).toMatch(/^Finished: Write the release notes/);
  });

  it.each([
    [
      'exits at start',
      { ACP_FIXTURE_START: 'exit' },
      /agent process exited with code 4.*missing configuration/,
    ],
    ['fails initialize', { ACP_FIXTURE_START: 'garbage' }, /malformed protocol message/],
    ['fails session/new', { ACP_FIXTURE_START: 'fail-session' }, /no sessions today/],
    ['needs authentication', { ACP_FIXTURE_START: 'auth-session' }, /Authentication required.*fixture login/],
  ])('rejects with the cause and leaves no session when the agent %s', async (_name, env, cause) => {
    const gw = setup(env);
    const before = gw.state.version(MAIN);
    const err = await gw.sessions
      .start({ acpProfileId: 'fixture', cwd: folder(), message: 'hello', parentKey: MAIN })
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    expect(err?.message).toMatch(/^ACP agent failed to start: /);
    expect(err?.message).toMatch(cause);
    expect(gw.sessions.list().map((s) => s.key)).toEqual([MAIN]);
    expect(gw.notices.peek(MAIN)).toEqual([]);
    expect(gw.state.watchers(MAIN).watching).toEqual([]);
    expect(gw.state.version(MAIN)).toBe(before);
    const rows = gw.db
      .prepare(`SELECT count(*) AS n FROM session_state_events WHERE session_key != ?`)
      .get(MAIN);
    expect(rows).toEqual({ n: 0 });
    expect(gw.db.prepare(`SELECT count(*) AS n FROM runs`).get()).toEqual({ n: 0 });
    expect(gw.db.prepare(`SELECT count(*) AS n FROM session_messages`).get()).toEqual({ n: 0 });
    expect(gw.db.prepare(`SELECT count(*) AS n FROM mcp_credentials`).get()).toEqual({ n: 0 });
  });

  it('a first turn that fails later is a failed run naming the cause', async () => {
    const gw = setup();
    const info = await gw.sessions.start({ acpProfileId: 'fixture', cwd: folder(), message: 'auth' });
    await waitFor(settled(info.key), 8000, 'failed run');
    const [run] = gw.runs.list(info.key);
    expect(run).toMatchObject({ status: 'failed', outcome: 'error' });
    expect(run!.error).toBe(
      'agent returned a protocol error: Authentication required: log in with `fixture login` first (code -32000)',
    );
  });

  it('refuses what it cannot start, writing nothing', async () => {
    const gw = setup();
    const cwd = folder();
    const file = path.join(cwd, 'file.txt');
    fs.writeFileSync(file, 'x');
    const cases: [Parameters<typeof gw.sessions.start>[0], string][] = [
      [{ message: 'x' }, 'choose exactly one of agentId and acpProfileId'],
      [
        { agentId: 'main', acpProfileId: 'fixture', message: 'x' },
        'choose exactly one of agentId and acpProfileId',
      ],
      [{ agentId: 'main', message: '  ' }, 'message must be a non-empty string'],
      [{ agentId: 'nobody', message: 'x' }, 'Unknown agent: nobody'],
      [{ acpProfileId: 'nope', message: 'x' }, 'Unknown ACP profile: nope'],
      [
        { agentId: 'main', message: 'x', parentKey: 'agent:main:ghost' },
        'Unknown sessionKey: agent:main:ghost',
      ],
      [{ agentId: 'main', message: 'x', cwd: 'relative/dir' }, 'cwd must be an absolute path: relative/dir'],
      [
        { agentId: 'main', message: 'x', cwd: path.join(cwd, 'missing') },
        `cwd does not exist: ${path.join(cwd, 'missing')}`,
      ],
      [{ agentId: 'main', message: 'x', cwd: file }, `cwd is not a folder: ${file}`],
    ];
    for (const [input, message] of cases) await expect(gw.sessions.start(input)).rejects.toThrow(message);
    expect(gw.sessions.list().map((s) => s.key)).toEqual([MAIN]);
  });
});
