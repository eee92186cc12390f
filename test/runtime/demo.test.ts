// Resetting the demo (issue 17.6): the demo's sessions go (turns cancelled, transcripts and goals
// removed), a fresh demo starts, and state versions never go back.
import { afterEach, describe, expect, it } from 'vitest';
import { openTestGateway, type TestGateway } from '../helpers/gateway';

let t: TestGateway | undefined;
afterEach(() => {
  // close() cuts the workers' scripted turns short (they take half a minute).
  t?.cleanup();
  t = undefined;
});

describe('the demo fleet', () => {
  it('resets to a fresh demo: new workers, a fresh transcript, versions never going back', async () => {
    t = openTestGateway();
    const { gw } = t;
    const first = await gw.runtime.startDemo();
    expect(first.workerKeys).toHaveLength(3);
    await gw.human.send(first.workerKeys[0]!, 'A human step-in before the reset.');
    const versionBefore = gw.state.version(first.coordinatorKey);
    const transcriptBefore = gw.transcripts.page(first.coordinatorKey).messages.length;
    expect(transcriptBefore).toBeGreaterThan(1);

    const second = await gw.runtime.resetDemo();
    expect(second.coordinatorKey).toBe(first.coordinatorKey);
    expect(second.workerKeys).toHaveLength(3);
    for (const old of first.workerKeys) {
      expect(gw.sessions.get(old)).toBeUndefined();
      expect(second.workerKeys).not.toContain(old);
    }
    const demoSessions = gw.sessions.list().filter((s) => s.agentId === 'demo');
    expect(demoSessions.map((s) => s.key).sort()).toEqual(
      [second.coordinatorKey, ...second.workerKeys].sort(),
    );
    // The coordinator starts over: the task, then its own first turn.
    const messages = gw.transcripts.page(second.coordinatorKey).messages;
    expect(messages[0]).toMatchObject({ role: 'user', actorType: 'human' });
    expect(messages.some((m) => m.text.includes('A human step-in before the reset.'))).toBe(false);
    expect(gw.goals.get(second.coordinatorKey)?.objective).toBe('Ship the v2.0 release notes');
    expect(gw.state.version(second.coordinatorKey)).toBeGreaterThanOrEqual(versionBefore);
    // Sessions of other agents are untouched.
    expect(gw.sessions.get('agent:main:main')).toBeDefined();
  });
});
