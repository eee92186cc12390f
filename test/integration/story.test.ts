// The runtime's full story through the contract: spawn → human steps in → one notice → wake →
// the coordinator reconciles with the right changesSince; cancelled and timed-out workers.
import { afterEach, describe, expect, it } from 'vitest';
import { openTestGateway, waitFor, type TestGateway, spawnEdge } from '../helpers/gateway';
import { noticeText } from '../helpers/spec';

let t: TestGateway;
afterEach(() => t?.cleanup());

function setup(stepMs = '20', steps = '3') {
  t = openTestGateway();
  t.gw.agents.save({ id: 'main', providerSettings: { stepMs, steps }, heartbeatSeconds: 0 });
  return t.gw;
}

describe('coordinator, workers and a human intervention', () => {
  it('spawns workers with seeded cursors, notifies once, wakes and reconciles', async () => {
    const gw = setup('200', '3');
    const wakes: string[] = [];
    gw.waker.onWake((k) => wakes.push(k));
    await gw.human.send(
      'agent:main:main',
      'Ship it: research the changes, draft the notes, review the draft',
    );
    await waitFor(
      () => gw.sessions.list().filter((s) => s.parentKey === 'agent:main:main').length === 3,
      5000,
      'spawns',
    );
    const workers = gw.sessions.list().filter((s) => s.parentKey === 'agent:main:main');
    for (const w of workers) {
      const v = gw.state.version(w.key);
      expect(v).toBeGreaterThan(0);
      expect(gw.state.cursor('agent:main:main', w.key)).toEqual({ lastSeen: v, notified: v, material: v });
    }
    await waitFor(() => gw.runtime.sessionStatus('agent:main:main') === 'idle', 5000, 'coordinator idle');
    const worker = workers[1]!;
    const seeded = gw.state.version(worker.key);
    wakes.length = 0;
    await gw.human.send(worker.key, 'Use the changelog from the release branch, not main.');
    const [event] = gw.state.changesSince(worker.key, seeded).events;
    expect(event).toMatchObject({
      kind: 'human_direct_message',
      actorType: 'human',
      summary: 'human message via desktop',
      payload: { channel: 'desktop' },
    });
    // Exactly one notice line, naming the seeded position; the main watcher was woken once.
    expect(gw.notices.peek('agent:main:main').map((n) => n.text)).toEqual([noticeText(worker.key, seeded)]);
    expect(wakes).toEqual(['agent:main:main']);
    // The wake runs the coordinator's heartbeat turn (after the 1 s grace: timers are off here).
    await waitFor(
      () => gw.transcripts.all('agent:main:main').some((m) => m.toolName === 'session_status'),
      5000,
      'reconcile',
    );
    const transcript = gw.transcripts.all('agent:main:main');
    const call = transcript.flatMap((m) => m.toolCalls ?? []).find((c) => c.name === 'session_status');
    expect(call?.arguments).toEqual({ sessionKey: worker.key, changesSince: seeded });
    // The reply is the assistant message after the session_status result.
    const replied = () => {
      const all = gw.transcripts.all('agent:main:main');
      const at = all.findIndex((m) => m.toolName === 'session_status');
      return all.slice(at + 1).some((m) => m.role === 'assistant');
    };
    await waitFor(replied, 5000, 'reply');
    const reply = gw.transcripts
      .all('agent:main:main')
      .filter((m) => m.role === 'assistant')
      .map((m) => m.text)
      .join('\n');
    expect(reply).toContain('human message via desktop');
    expect(reply).toContain('A human intervened directly');
    expect(gw.state.cursor('agent:main:main', worker.key)!.lastSeen).toBe(event!.sequence);
    await gw.runtime.idle();
  });

  it('queues exactly one notice line for twenty human messages before the coordinator drains', async () => {
    const gw = setup();
    const spawned = spawnEdge(gw, 'agent:main:subagent:w1');
    for (let i = 0; i < 20; i++) await gw.human.send('agent:main:subagent:w1', `instruction ${i}`);
    expect(gw.notices.peek('agent:main:main')).toEqual([
      {
        text: noticeText('agent:main:subagent:w1', spawned.sequence),
        contextKey: expect.stringMatching(/^session-state:[0-9a-f]+$/),
      },
    ]);
    await gw.runtime.idle();
  });

  it('records run_failed cancelled for a cancelled worker and timeout for a timed-out one', async () => {
    const gw = setup('20', '3');
    const spawn = (task: string, timeoutSeconds?: number) =>
      gw.tools.call('agent:main:main', 'sessions_spawn', {
        task,
        ...(timeoutSeconds ? { timeoutSeconds } : {}),
      });
    const a = await spawn('Index the repository [hang]');
    const b = await spawn('Crawl the docs [hang]', 1);
    const c = await spawn('Summarise the notes');
    const d = await spawn('Translate the notes [fail]');
    const key = (r: typeof a) => (r.ok ? (r.details as { childSessionKey: string }).childSessionKey : '');
    await waitFor(() => gw.runtime.sessionStatus(key(a)) === 'running', 2000, 'worker running');
    expect(gw.runtime.cancel(key(a))).toBe(true);
    await waitFor(() => gw.runtime.sessionStatus(key(b)) === 'failed', 4000, 'timeout');
    await waitFor(
      () => gw.runtime.sessionStatus(key(c)) === 'idle' && gw.runtime.sessionStatus(key(d)) === 'failed',
      4000,
      'done',
    );
    const last = (k: string) => gw.state.changesSince(k, 0).events.at(-1);
    expect(last(key(a))).toMatchObject({
      kind: 'run_failed',
      summary: 'child run cancelled',
      payload: { outcome: 'cancelled' },
    });
    expect(last(key(b))).toMatchObject({
      kind: 'run_failed',
      summary: 'child run timed out',
      payload: { outcome: 'timeout' },
    });
    expect(last(key(c))).toMatchObject({ kind: 'run_completed', summary: 'child run completed' });
    expect(last(key(d))).toMatchObject({
      kind: 'run_failed',
      summary: 'child run failed',
      payload: { outcome: 'error' },
    });
    // Log-only kinds: the parent's queue holds no stale-state notice for them.
    expect(gw.notices.peek('agent:main:main')).toEqual([]);
    await waitFor(
      () => gw.transcripts.all('agent:main:main').filter((m) => m.role === 'assistant').length >= 1,
      4000,
      'announcements',
    );
    await gw.runtime.idle();
  });
});
