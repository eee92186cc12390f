// The runtime's agent tools through gateway.tools.call: exact errors, watched semantics, paging,
// goals with the spec's summaries and the parent as a producer watcher.
import { afterEach, describe, expect, it } from 'vitest';
import { openTestGateway, type TestGateway, spawnEdge } from '../helpers/gateway';
import { noticeText } from '../helpers/spec';

let t: TestGateway;
afterEach(async () => {
  await t.gw.runtime.idle();
  t.cleanup();
});

const err = (error: string) => ({ ok: false, error });

function setup() {
  t = openTestGateway();
  t.gw.agents.save({ id: 'main', providerSettings: { stepMs: '1', steps: '1' } });
  return t.gw;
}

describe('sessions_send', () => {
  it('reports watched only when watch was given, and registers at the current version', async () => {
    const gw = setup();
    gw.sessions.create({ key: 'agent:main:peer' });
    gw.goals.set('agent:main:peer', { objective: 'Index the repo' }, { type: 'human' });
    const version = gw.state.version('agent:main:peer');
    const plain = await gw.tools.call('agent:main:main', 'sessions_send', {
      sessionKey: 'agent:main:peer',
      message: 'hi',
    });
    expect(plain).toMatchObject({
      ok: true,
      details: { status: 'delivered', sessionKey: 'agent:main:peer' },
    });
    expect(plain.ok && 'watched' in (plain.details as object)).toBe(false);
    const watched = await gw.tools.call('agent:main:main', 'sessions_send', {
      sessionKey: 'agent:main:peer',
      message: 'hi',
      watch: true,
    });
    expect(watched).toMatchObject({ ok: true, details: { watched: true } });
    expect(gw.state.cursor('agent:main:main', 'agent:main:peer')).toEqual({
      lastSeen: version,
      notified: version,
      material: version,
    });
    const off = await gw.tools.call('agent:main:main', 'sessions_send', {
      sessionKey: 'agent:main:peer',
      message: 'x',
      watch: false,
    });
    expect(off).toMatchObject({ ok: true, details: { watched: false } });
    const transcript = gw.transcripts.all('agent:main:peer').filter((m) => m.role === 'user');
    expect(transcript.map((m) => [m.actorType, m.actorId])).toEqual([
      ['agent', 'agent:main:main'],
      ['agent', 'agent:main:main'],
      ['agent', 'agent:main:main'],
    ]);
  });

  it('fails with exact messages and registers nothing on failure', async () => {
    const gw = setup();
    expect(
      await gw.tools.call('agent:main:main', 'sessions_send', {
        sessionKey: 'agent:main:nope',
        message: 'hi',
        watch: true,
      }),
    ).toEqual(err('Unknown sessionKey: agent:main:nope'));
    expect(gw.state.cursor('agent:main:main', 'agent:main:nope')).toBeUndefined();
    expect(
      await gw.tools.call('agent:main:main', 'sessions_send', { sessionKey: 'agent:main:main' }),
    ).toEqual(err('message is required'));
    expect(await gw.tools.call('agent:main:main', 'sessions_send', { message: 'x' })).toEqual(
      err('sessionKey is required'),
    );
    expect(await gw.tools.call('agent:main:main', 'sessions_send', 'text')).toEqual(
      err('Tool arguments must be an object'),
    );
    expect(await gw.tools.call('agent:main:main', 'sessions_nope', {})).toEqual(
      err('Unknown tool: sessions_nope'),
    );
    gw.sessions.create({ key: 'agent:main:peer' });
    expect(
      await gw.tools.call('agent:main:main', 'sessions_send', {
        sessionKey: 'agent:main:peer',
        message: 'x',
        watch: 'yes',
      }),
    ).toEqual(err('watch must be a boolean'));
  });
});

describe('sessions_spawn', () => {
  it('validates its arguments with exact messages', async () => {
    const gw = setup();
    const call = (args: unknown) => gw.tools.call('agent:main:main', 'sessions_spawn', args);
    expect(await call({})).toEqual(err('task is required'));
    expect(await call({ task: 'x', timeoutSeconds: 0 })).toEqual(
      err('timeoutSeconds must be an integer between 1 and 86400'),
    );
    expect(await call({ task: 'x', timeoutSeconds: 1.5 })).toEqual(
      err('timeoutSeconds must be an integer between 1 and 86400'),
    );
    expect(await call({ task: 'x', agentId: 'ghost' })).toEqual(err('Unknown agentId: ghost'));
    expect(await call({ task: 'x', runtime: 'docker' })).toEqual(err('runtime must be "native" or "acp"'));
    expect(await call({ task: 'x', label: 5 })).toEqual(err('label must be a string'));
    expect(gw.sessions.list().map((s) => s.key)).toEqual(['agent:main:main']);
  });

  it('creates agent:<id>:subagent:<id> with child_spawned before the first turn', async () => {
    const gw = setup();
    const r = await gw.tools.call('agent:main:main', 'sessions_spawn', {
      task: 'Count the files',
      label: 'counter',
    });
    expect(r.ok).toBe(true);
    const key = (r as { details: { childSessionKey: string } }).details.childSessionKey;
    expect(key).toMatch(/^agent:main:subagent:[0-9a-f]{8}$/);
    expect(gw.sessions.get(key)).toMatchObject({ parentKey: 'agent:main:main', label: 'counter' });
    const first = gw.state.changesSince(key, 0).events[0]!;
    expect(first).toMatchObject({
      kind: 'child_spawned',
      actorType: 'agent',
      actorId: 'agent:main:main',
      summary: 'child session spawned',
    });
    expect(gw.state.cursor('agent:main:main', key)).toEqual({
      lastSeen: first.sequence,
      notified: first.sequence,
      material: first.sequence,
    });
    await gw.runtime.idle();
    expect(gw.state.changesSince(key, 0).events.map((e) => e.kind)).toEqual([
      'child_spawned',
      'run_completed',
    ]);
    const parent = gw.transcripts.all('agent:main:main');
    expect(parent.some((m) => m.role === 'assistant' && m.text.includes(`Worker ${key} completed.`))).toBe(
      true,
    );
  });
});

describe('sessions_history', () => {
  it('pages a transcript newest page first', async () => {
    const gw = setup();
    gw.sessions.create({ key: 'agent:main:log' });
    const store = gw.transcripts;
    for (let i = 0; i < 5; i++)
      await gw.tools.call('agent:main:main', 'sessions_send', {
        sessionKey: 'agent:main:log',
        message: `m${i}`,
      });
    await gw.runtime.idle();
    const all = store.all('agent:main:log').filter((m) => m.role === 'user');
    expect(all.map((m) => m.text)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
    const page = await gw.tools.call('agent:main:main', 'sessions_history', {
      sessionKey: 'agent:main:log',
      limit: 2,
    });
    const d = (
      page as {
        details: { messages: { id: number; text: string }[]; hasMore: boolean; nextBeforeId: number };
      }
    ).details;
    expect(d.messages).toHaveLength(2);
    expect(d.hasMore).toBe(true);
    const next = await gw.tools.call('agent:main:main', 'sessions_history', {
      sessionKey: 'agent:main:log',
      limit: 2,
      beforeId: d.nextBeforeId,
    });
    const d2 = (next as { details: { messages: { id: number }[] } }).details;
    expect(d2.messages.at(-1)!.id).toBeLessThan(d.messages[0]!.id);
    expect(
      await gw.tools.call('agent:main:main', 'sessions_history', { sessionKey: 'agent:main:log', limit: 0 }),
    ).toEqual(err('limit must be an integer between 1 and 100'));
  });
});

describe('goals', () => {
  it('records goal_changed with the spec summaries and notifies the parent (producer watcher)', async () => {
    const gw = setup();
    const seed = spawnEdge(gw, 'agent:main:subagent:g');
    const child = 'agent:main:subagent:g';
    expect(await gw.tools.call(child, 'goal_set', {})).toEqual(err('objective or status is required'));
    expect(await gw.tools.call(child, 'goal_set', { status: 'done' })).toEqual(
      err('objective is required to create a goal'),
    );
    await gw.tools.call(child, 'goal_set', { objective: 'Write the parser' });
    await gw.tools.call(child, 'goal_set', { status: 'blocked' });
    await gw.tools.call(child, 'goal_set', { status: 'blocked' }); // no change, no event
    await gw.tools.call(child, 'goal_set', { objective: 'Write the lexer' });
    expect(await gw.tools.call(child, 'goal_set', { status: 'finished' })).toEqual(
      err('status must be one of active, paused, blocked, done'),
    );
    await gw.tools.call(child, 'goal_clear', {});
    gw.goals.set(child, { objective: 'Human says: tests first' }, { type: 'human', id: 'local-user' });
    const events = gw.state.changesSince(child, seed.sequence).events;
    expect(events.map((e) => [e.summary, e.actorType])).toEqual([
      ['goal created', 'agent'],
      ['goal status changed to blocked', 'agent'],
      ['goal objective changed', 'agent'],
      ['goal cleared', 'agent'],
      ['goal created', 'human'],
    ]);
    expect(gw.notices.peek('agent:main:main')).toEqual([
      { text: noticeText(child, seed.sequence), contextKey: expect.any(String) },
    ]);
  });
});

describe('human actions', () => {
  it('records human_direct_message only for sessions with a parent or a watcher', async () => {
    const gw = setup();
    gw.sessions.create({ key: 'agent:main:lonely' });
    await gw.human.send('agent:main:lonely', 'hello');
    expect(gw.state.version('agent:main:lonely')).toBe(0);
    expect(gw.transcripts.all('agent:main:lonely')[0]).toMatchObject({
      role: 'user',
      actorType: 'human',
      text: 'hello',
    });
    gw.state.registerWatch('agent:main:main', 'agent:main:lonely');
    await gw.human.send('agent:main:lonely', 'again', { channel: 'slack' });
    expect(gw.state.changesSince('agent:main:lonely', 0).events).toEqual([
      expect.objectContaining({
        kind: 'human_direct_message',
        summary: 'human message via slack',
        payload: { channel: 'slack' },
      }),
    ]);
    await gw.human.send('agent:main:lonely', 'third', { channel: '  ' });
    expect(gw.state.changesSince('agent:main:lonely', 0).events.at(-1)).toMatchObject({
      summary: 'human message via unknown',
      payload: { channel: 'unknown' },
    });
    await expect(gw.human.send('agent:main:ghost', 'x')).rejects.toThrow(
      'Unknown sessionKey: agent:main:ghost',
    );
    await expect(gw.human.send('agent:main:lonely', '   ')).rejects.toThrow(
      'text must be a non-empty string',
    );
  });
});
