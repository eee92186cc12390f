// Turns, compaction and the heartbeat.
import { afterEach, describe, expect, it } from 'vitest';
import { WAKE_TURN_GRACE_MS } from '../../electron/gateway/runtime/wake';
import { FakeClock, openTestGateway, waitFor, type TestGateway, spawnEdge } from '../helpers/gateway';
import { contextKeyOf, noticeText } from '../helpers/spec';
import { OA_DONE, oaDelta, oaUsage, sendSse, startWireServer } from '../providers/wire-server';

let t: TestGateway;
afterEach(async () => {
  await t.gw.runtime.idle();
  t.cleanup();
});

describe('turns', () => {
  it('drains the notice queue at the start of a turn and passes the lines as system events', async () => {
    t = openTestGateway();
    const gw = t.gw;
    gw.agents.save({ id: 'main', providerSettings: { stepMs: '1', steps: '1' } });
    const seed = spawnEdge(gw, 'agent:main:subagent:w');
    await gw.human.send('agent:main:subagent:w', 'stop after step one');
    gw.notices.enqueue('agent:main:main', { text: 'Build finished.' });
    expect(gw.notices.peek('agent:main:main')).toHaveLength(2);
    await gw.human.send('agent:main:main', 'status?');
    await gw.runtime.idle();
    expect(gw.notices.peek('agent:main:main')).toEqual([]);
    const c = gw.state.cursor('agent:main:main', 'agent:main:subagent:w')!;
    expect(c.lastSeen).toBe(c.material);
    const call = gw.transcripts.all('agent:main:main').flatMap((m) => m.toolCalls ?? [])[0];
    expect(call).toMatchObject({
      name: 'session_status',
      arguments: { sessionKey: 'agent:main:subagent:w', changesSince: seed.sequence },
    });
  });

  it('runs one turn at a time and queues input that arrives during a turn', async () => {
    t = openTestGateway();
    const gw = t.gw;
    gw.agents.save({ id: 'main', providerSettings: { stepMs: '30', steps: '2' } });
    const r = await gw.tools.call('agent:main:main', 'sessions_spawn', { task: 'slow work' });
    const key = (r as { details: { childSessionKey: string } }).details.childSessionKey;
    await waitFor(() => gw.runtime.sessionStatus(key) === 'running', 2000, 'running');
    await gw.human.send(key, 'also check the tests');
    expect(gw.runtime.runs(key)).toHaveLength(1);
    await gw.runtime.idle();
    const runs = gw.runtime.runs(key);
    expect(runs.map((x) => x.status)).toEqual(['idle', 'idle']);
    expect(runs[0]!.startedAt).toBeGreaterThanOrEqual(runs[1]!.endedAt!);
    const replies = gw.transcripts
      .all(key)
      .filter((m) => m.role === 'assistant')
      .map((m) => m.text);
    expect(replies).toEqual([
      'Finished: slow work. All 2 steps done.',
      'Understood, I will follow your instruction: "also check the tests"',
    ]);
    // A scripted agent is not a model: it reports no tokens, and none are invented for it.
    expect(runs.map((r) => [r.inputTokens, r.outputTokens])).toEqual([
      [0, 0],
      [0, 0],
    ]);
    expect(gw.runtime.tokens(key)).toMatchObject({ input: 0, output: 0 });
  });

  it('counts the tokens a model reports, per run and per session (a real provider over HTTP)', async () => {
    const model = await startWireServer();
    const usage = [
      [12, 3],
      [20, 5],
    ];
    model.handle((_req, res) => {
      const [prompt, completion] = usage[model.requests.length - 1]!;
      sendSse(res, [oaDelta({ content: 'ok' }), oaDelta({}, 'stop'), oaUsage(prompt!, completion!), OA_DONE]);
    });
    try {
      t = openTestGateway();
      const gw = t.gw;
      gw.agents.save({
        id: 'main',
        provider: 'openai',
        providerSettings: { model: 'gpt-test', baseUrl: `${model.origin}/v1`, apiKey: 'sk-test-0123456789' },
      });
      for (const n of [1, 2]) {
        await gw.human.send('agent:main:main', `hello ${n}`);
        await gw.runtime.idle();
      }
      const runs = gw.runtime.runs('agent:main:main');
      expect(runs.map((r) => [r.inputTokens, r.outputTokens]).sort()).toEqual([
        [12, 3],
        [20, 5],
      ]);
      expect(gw.runtime.tokens('agent:main:main')).toMatchObject({ input: 32, output: 8 });
    } finally {
      await model.close();
    }
  });

  it('compacts a transcript past its budget and records compacted (log only)', async () => {
    t = openTestGateway();
    const gw = t.gw;
    gw.agents.save({ id: 'main', providerSettings: { compactionChars: '2000', stepMs: '1', steps: '1' } });
    gw.sessions.create({ key: 'agent:main:chatty' });
    gw.state.registerWatch('agent:main:main', 'agent:main:chatty');
    for (let i = 0; i < 12; i++) await gw.human.send('agent:main:chatty', `message ${i} ${'x'.repeat(200)}`);
    await gw.runtime.idle();
    const events = gw.state.changesSince('agent:main:chatty', 0).events.filter((e) => e.kind === 'compacted');
    expect(events.length).toBeGreaterThanOrEqual(1);
    expect(events[0]).toMatchObject({ actorType: 'system', summary: 'session compacted' });
    const all = gw.transcripts.all('agent:main:chatty');
    expect(all[0]).toMatchObject({ role: 'system', actorType: 'system' });
    expect(all[0]!.text).toMatch(/^Summary of \d+ earlier messages:/);
    expect(all.reduce((n, m) => n + m.text.length, 0)).toBeLessThan(12 * 220);
  });

  it('wakes a main-session watcher with a heartbeat turn when a notice is queued (timers on)', async () => {
    t = openTestGateway({ autoStart: true });
    const gw = t.gw;
    gw.agents.save({ id: 'main', heartbeatSeconds: 0, providerSettings: { stepMs: '1', steps: '1' } });
    const seed = spawnEdge(gw, 'agent:main:subagent:hb');
    const queued: string[] = [];
    gw.events.on((e) => e.type === 'notice:queued' && queued.push(e.entry.text));
    await gw.human.send('agent:main:subagent:hb', 'change of plan');
    expect(queued).toEqual([noticeText('agent:main:subagent:hb', seed.sequence)]);
    await waitFor(
      () => gw.transcripts.all('agent:main:main').some((m) => m.toolName === 'session_status'),
      3000,
      'woken turn',
    );
    expect(
      gw.notices
        .peek('agent:main:main')
        .filter((e) => e.contextKey === contextKeyOf('agent:main:subagent:hb')),
    ).toEqual([]);
  });

  it('without timers, a wake runs the heartbeat turn after the grace, leaving the notice visible until then', async () => {
    const clock = new FakeClock();
    t = openTestGateway({ now: clock.now, scheduler: clock });
    const gw = t.gw;
    gw.agents.save({ id: 'main', heartbeatSeconds: 0, providerSettings: { stepMs: '1', steps: '1' } });
    const seed = spawnEdge(gw, 'agent:main:subagent:g');
    await gw.human.send('agent:main:subagent:g', 'new direction');
    const notice = noticeText('agent:main:subagent:g', seed.sequence);
    expect(gw.notices.peek('agent:main:main').map((n) => n.text)).toEqual([notice]);
    clock.tick(WAKE_TURN_GRACE_MS - 1);
    await gw.runtime.idle();
    expect(gw.notices.peek('agent:main:main').map((n) => n.text)).toEqual([notice]);
    clock.tick(1);
    await gw.runtime.idle();
    expect(gw.notices.peek('agent:main:main')).toEqual([]);
    expect(gw.transcripts.all('agent:main:main').some((m) => m.toolName === 'session_status')).toBe(true);
    expect(clock.pending()).toBe(0);
  });
});
