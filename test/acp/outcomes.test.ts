import { mkdirSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeAllAcpChildren } from '../../electron/gateway/runtime/acp';
import { makeWorkspace, messages, probe, startFixture, waiting } from './helpers';

const ws = makeWorkspace();
beforeAll(() => mkdirSync(ws.dir));
afterEach(() => closeAllAcpChildren());
afterAll(() => ws.cleanup());

describe('AcpChild prompt outcomes', () => {
  it('completes an answer with its stop reason and streamed text', async () => {
    const { child, updates } = await startFixture(ws.dir);
    expect(await child.prompt('answer hello')).toEqual({ outcome: 'completed', stopReason: 'end_turn' });
    expect(updates).toEqual([{ kind: 'message', text: 'You said: answer hello' }]);
  });

  it('reports a refusal as an error with the stop reason', async () => {
    const { child } = await startFixture(ws.dir);
    expect(await child.prompt('refuse')).toEqual({
      outcome: 'error',
      stopReason: 'refusal',
      reason: 'the agent refused the prompt (stop reason: refusal)',
    });
    // A refusal is a normal turn end: the child stays usable.
    expect(await child.prompt('answer again')).toEqual({ outcome: 'completed', stopReason: 'end_turn' });
  });

  it('reports a protocol error from session/prompt', async () => {
    const { child } = await startFixture(ws.dir);
    expect(await child.prompt('fail')).toEqual({
      outcome: 'error',
      reason: 'agent returned a protocol error: Internal error: script failed on purpose (code -32603)',
    });
  });

  it('reports a crash mid-prompt with the exit code and last stderr line, and later prompts too', async () => {
    const { child, updates } = await startFixture(ws.dir);
    const reason = 'agent process exited with code 3 (stderr: fixture: crashing on purpose)';
    expect(await child.prompt('crash')).toEqual({ outcome: 'error', reason });
    expect(messages(updates)).toBe('about to crash');
    expect(await child.prompt('answer')).toEqual({ outcome: 'error', reason });
    expect(probe(child.pid)).toBe('ESRCH');
  });

  it('treats garbage on stdout as a malformed protocol message and stops the agent', async () => {
    const { child } = await startFixture(ws.dir);
    const reason = 'malformed protocol message from the agent: "this is not json"';
    expect(await child.prompt('garbage')).toEqual({ outcome: 'error', reason });
    await child.close();
    expect(probe(child.pid)).toBe('ESRCH');
    expect(await child.prompt('answer')).toEqual({ outcome: 'error', reason });
  });

  it('times out a silent agent and stops its process', async () => {
    const { child } = await startFixture(ws.dir);
    const started = Date.now();
    expect(await child.prompt('hang', { timeoutMs: 300 })).toEqual({
      outcome: 'timeout',
      reason: 'prompt exceeded 300 ms; the agent was stopped',
    });
    expect(Date.now() - started).toBeLessThan(2_000);
    await child.close();
    expect(probe(child.pid)).toBe('ESRCH');
    expect(await child.prompt('answer')).toEqual({
      outcome: 'error',
      reason: 'the agent was stopped after a prompt exceeded 300 ms',
    });
  });

  it('cancels a hanging prompt with stop reason cancelled, and the child stays usable', async () => {
    const { child } = await startFixture(ws.dir);
    const running = child.prompt('hang');
    await waiting(child);
    child.cancel();
    expect(await running).toEqual({ outcome: 'cancelled', stopReason: 'cancelled' });
    expect(await child.prompt('answer after cancel')).toEqual({
      outcome: 'completed',
      stopReason: 'end_turn',
    });
  });

  it('stops an agent that ignores cancel after the grace', async () => {
    const { child } = await startFixture(ws.dir, { cancelGraceMs: 200 });
    const running = child.prompt('deaf');
    await waiting(child);
    child.cancel();
    const reason = 'the agent did not acknowledge the cancel within 200 ms and was stopped';
    expect(await running).toEqual({ outcome: 'cancelled', reason });
    await child.close();
    expect(probe(child.pid)).toBe('ESRCH');
    expect(await child.prompt('answer')).toEqual({ outcome: 'error', reason });
  });

  it('queues a second prompt behind the running one and resolves them in order', async () => {
    const { child, updates } = await startFixture(ws.dir);
    const order: string[] = [];
    const first = child.prompt('slow first').then((r) => (order.push('first'), r));
    const second = child.prompt('answer second').then((r) => (order.push('second'), r));
    expect(await Promise.all([first, second])).toEqual([
      { outcome: 'completed', stopReason: 'end_turn' },
      { outcome: 'completed', stopReason: 'end_turn' },
    ]);
    expect(order).toEqual(['first', 'second']);
    expect(updates).toEqual([
      { kind: 'message', text: 'slow: slow first' },
      { kind: 'message', text: 'You said: answer second' },
    ]);
  });

  it('cancel also drops prompts still waiting in the queue', async () => {
    const { child, updates } = await startFixture(ws.dir);
    const running = child.prompt('hang');
    const queued = child.prompt('answer never sent');
    await waiting(child);
    child.cancel();
    expect(await running).toEqual({ outcome: 'cancelled', stopReason: 'cancelled' });
    expect(await queued).toEqual({ outcome: 'cancelled', reason: 'cancelled before it started' });
    expect(updates).toEqual([]);
  });

  it('settles running and queued prompts when closed', async () => {
    const { child } = await startFixture(ws.dir);
    const running = child.prompt('hang');
    const queued = child.prompt('answer');
    await waiting(child);
    await child.close();
    const closed = { outcome: 'error', reason: 'the ACP child was closed' };
    expect(await running).toEqual(closed);
    expect(await queued).toEqual(closed);
    expect(await child.prompt('answer')).toEqual(closed);
  });
});
