import { describe, expect, it } from 'vitest';
import {
  createNotificationCoalescer,
  notificationItemFor,
  summarize,
  type CoalescerClock,
  type NotificationContent,
  type NotificationItem,
} from '../../electron/main/notifications';
import type { Cancel } from '../../electron/gateway/scheduler';
import type { GatewayEvent } from '../../electron/gateway/types';
import { FakeClock } from '../helpers/clock';

/** The shared FakeClock as the coalescer's clock: its timers run only as the test ticks. */
function coalescerClock(clock: FakeClock): CoalescerClock {
  return {
    now: clock.now,
    setTimer: (fn, ms) => clock.after(ms, fn),
    clearTimer: (cancel) => (cancel as Cancel)(),
  };
}

const notice = (n: number, key = 'agent:coord:main'): NotificationItem => ({
  kind: 'notice',
  sessionKey: key,
  text: `worker ${n} changed`,
});

function setup() {
  const clock = new FakeClock(1_000_000);
  const shown: NotificationContent[] = [];
  const coalescer = createNotificationCoalescer({
    quietMs: 1500,
    maxWaitMs: 10_000,
    clock: coalescerClock(clock),
    show: (c) => shown.push(c),
  });
  return { clock, shown, coalescer };
}

describe('notification coalescer', () => {
  it('turns a burst of 50 within one second into one notification', () => {
    const { clock, shown, coalescer } = setup();
    for (let i = 0; i < 50; i++) {
      coalescer.add(notice(i));
      clock.tick(20);
    }
    expect(shown).toEqual([]);
    clock.tick(1500);
    expect(shown).toEqual([
      {
        title: 'Sightline: new notices',
        body: '50 notices queued across 1 session',
        sessionKey: 'agent:coord:main',
      },
    ]);
  });

  it('shows a later item, after the window, as a second notification', () => {
    const { clock, shown, coalescer } = setup();
    for (let i = 0; i < 50; i++) {
      coalescer.add(notice(i));
      clock.tick(20);
    }
    clock.tick(5000);
    coalescer.add(notice(51));
    clock.tick(1499);
    expect(shown).toHaveLength(1);
    clock.tick(1);
    expect(shown).toHaveLength(2);
    expect(shown[1]).toEqual({
      title: 'Notice for agent:coord:main',
      body: 'worker 51 changed',
      sessionKey: 'agent:coord:main',
    });
    expect(clock.pending()).toBe(0);
  });

  it('does not wait forever on a steady trickle: maxWait caps the delay', () => {
    const { clock, shown, coalescer } = setup();
    for (let i = 0; i < 30; i++) {
      coalescer.add(notice(i));
      clock.tick(1000);
    }
    // 30 s of one item per second (never 1.5 s quiet): one notification per 10 s window.
    expect(shown.map((s) => s.body)).toEqual([
      '10 notices queued across 1 session',
      '10 notices queued across 1 session',
      '10 notices queued across 1 session',
    ]);
  });

  it('flush shows what is pending at once; dispose drops it', () => {
    const { clock, shown, coalescer } = setup();
    coalescer.add(notice(1));
    coalescer.flush();
    expect(shown).toHaveLength(1);
    coalescer.add(notice(2));
    coalescer.dispose();
    clock.tick(60_000);
    coalescer.add(notice(3));
    clock.tick(60_000);
    expect(shown).toHaveLength(1);
    expect(clock.pending()).toBe(0);
  });
});

describe('notificationItemFor', () => {
  const stateEvent = (kind: 'upstream_missing' | 'goal_changed'): GatewayEvent => ({
    type: 'state:event',
    sessionKey: 'agent:a:adopted:claude:t1',
    agentId: 'a',
    event: { sequence: 4, kind, actorType: 'system', occurredAt: 1, summary: 'Transcript file is gone' },
  });

  it('picks upstream_missing events and notices queued to main sessions only', () => {
    expect(notificationItemFor(stateEvent('upstream_missing'))).toEqual({
      kind: 'upstream_missing',
      sessionKey: 'agent:a:adopted:claude:t1',
      summary: 'Transcript file is gone',
    });
    expect(notificationItemFor(stateEvent('goal_changed'))).toBeUndefined();
    expect(
      notificationItemFor({
        type: 'notice:queued',
        sessionKey: 'agent:a:main',
        entry: { text: 'child finished' },
      }),
    ).toEqual({ kind: 'notice', sessionKey: 'agent:a:main', text: 'child finished' });
    expect(
      notificationItemFor({ type: 'notice:queued', sessionKey: 'agent:a:subagent:x', entry: { text: 't' } }),
    ).toBeUndefined();
    expect(notificationItemFor({ type: 'catalog:changed' })).toBeUndefined();
  });
});

describe('summarize', () => {
  it('names a single upstream loss, and counts a mixed batch', () => {
    expect(
      summarize([{ kind: 'upstream_missing', sessionKey: 'agent:a:adopted:x', summary: 'gone' }]),
    ).toEqual({
      title: 'Upstream link missing',
      body: 'agent:a:adopted:x: gone',
      sessionKey: 'agent:a:adopted:x',
    });
    expect(
      summarize([
        { kind: 'upstream_missing', sessionKey: 'agent:a:adopted:x', summary: 'gone' },
        { kind: 'upstream_missing', sessionKey: 'agent:b:adopted:y', summary: 'gone' },
        notice(1, 'agent:a:main'),
      ]),
    ).toEqual({
      title: 'Sightline: upstream links missing',
      body: '2 upstream links missing, 1 notice queued across 3 sessions',
    });
  });

  it('puts a long notice on one clipped line', () => {
    const body = summarize([
      { kind: 'notice', sessionKey: 'agent:a:main', text: `line\n${'x'.repeat(300)}` },
    ]).body;
    expect(body).toHaveLength(200);
    expect(body.startsWith('line x')).toBe(true);
    expect(body.endsWith('…')).toBe(true);
  });
});
