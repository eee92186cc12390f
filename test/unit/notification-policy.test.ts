// When the person is notified (issue 17.4): which events, as chosen in Settings; one per session
// per 60 s; never for the session on screen.
import { describe, expect, it } from 'vitest';
import { createNotificationPolicy, NOTIFY_WINDOW_MS } from '../../shared/notification-policy';
import { DEFAULT_PREFERENCES, type GatewayEvent, type NotificationPreferences } from '../../shared/ipc';

function setup(prefs: Partial<NotificationPreferences> = {}) {
  let t = 1_000_000;
  let viewing: string | undefined;
  const policy = createNotificationPolicy({
    now: () => t,
    prefs: () => ({ ...DEFAULT_PREFERENCES.notifications, ...prefs }),
    viewing: () => viewing,
    label: (k) => (k === 'agent:main:acp:1' ? 'Claude child' : k),
  });
  return {
    decide: (...events: GatewayEvent[]) => policy.decide(events),
    advance: (ms: number) => void (t += ms),
    view: (k: string | undefined) => void (viewing = k),
  };
}

const status = (
  sessionKey: string,
  s: 'waiting' | 'failed' | 'running' | 'idle',
  reason?: string,
): GatewayEvent => ({
  type: 'session:status',
  sessionKey,
  status: { status: s, since: 1, ...(reason ? { reason } : {}) },
});
const ended = (sessionKey: string, took: number): GatewayEvent => ({
  type: 'run:changed',
  run: {
    runId: 'r',
    sessionKey,
    status: 'idle',
    startedAt: 0,
    endedAt: took,
    inputTokens: 0,
    outputTokens: 0,
  },
});
const missing = (sessionKey: string): GatewayEvent => ({
  type: 'state:event',
  sessionKey,
  agentId: 'main',
  event: {
    sequence: 4,
    kind: 'upstream_missing',
    actorType: 'system',
    occurredAt: 1,
    summary: 'upstream missing via claude',
  },
});

describe('notification policy', () => {
  it('notifies a session that starts waiting, naming it and the reason', () => {
    const p = setup();
    expect(p.decide(status('agent:main:acp:1', 'waiting', 'Delete build/'))).toEqual([
      {
        reason: 'waiting',
        sessionKey: 'agent:main:acp:1',
        title: 'Claude child is waiting for you',
        body: 'Delete build/',
      },
    ]);
  });

  it('failed runs, upstream loss, and long runs when chosen; nothing for a run that starts', () => {
    const p = setup({ finished: true, longRunSeconds: 60 });
    expect(
      p.decide(status('a', 'running'), status('a', 'failed', 'HTTP 500: overloaded')).map((n) => n.title),
    ).toEqual(['a: the run failed']);
    expect(p.decide(missing('b')).map((n) => n.body)).toEqual([
      'upstream missing via claude; the upstream link was removed.',
    ]);
    expect(p.decide(ended('c', 59_000))).toEqual([]);
    expect(p.decide(ended('d', 180_000)).map((n) => [n.title, n.body])).toEqual([
      ['d finished', 'The run took 3 min.'],
    ]);
  });

  it('obeys Settings: nothing for a kind switched off', () => {
    const p = setup({ waiting: false, failed: false, upstreamMissing: false });
    expect(
      p.decide(status('a', 'waiting'), status('b', 'failed'), missing('c'), ended('d', 10_000_000)),
    ).toEqual([]);
  });

  it('one per session per 60 s; other sessions are not held back', () => {
    const p = setup();
    expect(p.decide(status('a', 'waiting'), status('b', 'waiting'))).toHaveLength(2);
    p.advance(10_000);
    expect(p.decide(status('a', 'failed'))).toEqual([]);
    p.advance(NOTIFY_WINDOW_MS - 10_000);
    expect(p.decide(status('a', 'waiting'))).toHaveLength(1);
  });

  it('none for the session the person is looking at, and a repeated status is not news', () => {
    const p = setup();
    p.view('a');
    expect(p.decide(status('a', 'waiting'))).toEqual([]);
    p.view('b');
    expect(p.decide(status('a', 'waiting'))).toEqual([]);
    expect(p.decide(status('a', 'idle'), status('a', 'waiting'))).toHaveLength(1);
  });
});
