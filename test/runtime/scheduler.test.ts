// Time you can drive: heartbeats and run timeouts run on the injected scheduler (the wake grace:
// runtime/native turns test, native engine).
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../helpers/clock';
import { openTestGateway, waitFor, type TestGateway } from '../helpers/gateway';

let t: TestGateway;
afterEach(async () => {
  await t.gw.runtime.idle();
  t.cleanup();
});

describe('scheduler', () => {
  it('heartbeats fire on the scheduler: nothing before the interval, one wake at it', async () => {
    const clock = new FakeClock();
    t = openTestGateway({ now: clock.now, scheduler: clock, autoStart: true });
    const gw = t.gw;
    const wakes: string[] = [];
    gw.waker.onWake((key, reason) => wakes.push(`${key}:${reason}`));
    gw.agents.save({ id: 'main', heartbeatSeconds: 60 });
    clock.tick(59_999);
    expect(wakes).toEqual([]);
    clock.tick(1);
    expect(wakes).toEqual(['agent:main:main:heartbeat']);
    // Coalesced for 20 s, then the next interval wakes again.
    clock.tick(60_000);
    expect(wakes).toEqual(['agent:main:main:heartbeat', 'agent:main:main:heartbeat']);
    await gw.runtime.idle();
    t.gw.close();
    expect(clock.pending()).toBe(0);
  });

  it('a spawned run times out when the fake clock passes its timeout, not before', async () => {
    const clock = new FakeClock();
    t = openTestGateway({ now: clock.now, scheduler: clock });
    const gw = t.gw;
    // The scripted worker pauses for real between steps: long enough to still be running.
    gw.agents.save({ id: 'main', providerSettings: { stepMs: '200', steps: '50' } });
    const r = await gw.tools.call('agent:main:main', 'sessions_spawn', { task: 'slow', timeoutSeconds: 30 });
    const key = (r as { details: { childSessionKey: string } }).details.childSessionKey;
    await waitFor(() => gw.runtime.status(key)?.status === 'running', 5000, 'the child run');
    clock.tick(29_999);
    expect(gw.runtime.sessionStatus(key)).toBe('running');
    clock.tick(1);
    await gw.runtime.idle();
    expect(gw.runtime.runs(key)[0]).toMatchObject({
      status: 'failed',
      outcome: 'timeout',
      error: 'run exceeded 30 s',
    });
  });
});
