// Explicit watches (spec: "Explicit (sessions_send with watch: true)"): registration after a
// successful send at the receiver's current version, never clobbering, and the `watched` field.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { count, humanTurn, noticeFor, openHarness, type Harness } from './helpers';

// The sender is a sub-agent: a main-session watcher would be woken, and its heartbeat turn could
// drain and acknowledge between the awaits below.
const LEAD = 'agent:main:subagent:lead';
const WORKER = 'agent:main:subagent:worker';

let h: Harness;
beforeEach(() => {
  h = openHarness();
  h.gw.sessions.create({ key: LEAD });
  h.gw.sessions.create({ key: WORKER });
});
afterEach(() => {
  h.dispose();
});

describe('sessions_send watch', () => {
  it('watch: true registers the sender at the receiver’s current version', async () => {
    const { gw } = h;
    gw.state.record(humanTurn(WORKER)); // 1
    gw.state.record(humanTurn(WORKER)); // 2
    const r = await gw.tools.call(LEAD, 'sessions_send', {
      sessionKey: WORKER,
      message: 'take the API task',
      watch: true,
    });
    expect(r.ok && (r.details as { watched?: boolean }).watched).toBe(true);
    expect(gw.state.cursor(LEAD, WORKER)).toEqual({ lastSeen: 2, notified: 2, material: 2 });
    expect(gw.notices.peek(LEAD)).toEqual([]);
    gw.state.record(humanTurn(WORKER)); // 3
    expect(gw.notices.peek(LEAD)).toEqual([noticeFor(WORKER, 2)]);
    // Sending again with watch: true never clobbers the pending cursor.
    const again = await gw.tools.call(LEAD, 'sessions_send', {
      sessionKey: WORKER,
      message: 'and the docs',
      watch: true,
    });
    expect(again.ok && (again.details as { watched?: boolean }).watched).toBe(true);
    expect(gw.state.cursor(LEAD, WORKER)).toEqual({ lastSeen: 2, notified: 3, material: 3 });
  });

  it('carries no watched field without watch, and watched: false for watch: false', async () => {
    const { gw } = h;
    const plain = await gw.tools.call(LEAD, 'sessions_send', { sessionKey: WORKER, message: 'hello' });
    expect(plain.ok).toBe(true);
    expect(plain.ok && plain.details).not.toHaveProperty('watched');
    const no = await gw.tools.call(LEAD, 'sessions_send', {
      sessionKey: WORKER,
      message: 'hello',
      watch: false,
    });
    expect(no.ok).toBe(true);
    expect(no.ok && no.details).toMatchObject({ watched: false });
    expect(count(gw, 'session_watch_cursors')).toBe(0);
  });

  it('a failed send registers nothing', async () => {
    const { gw } = h;
    const r = await gw.tools.call(LEAD, 'sessions_send', {
      sessionKey: 'agent:main:subagent:gone',
      message: 'hi',
      watch: true,
    });
    expect(r).toEqual({ ok: false, error: 'Unknown sessionKey: agent:main:subagent:gone' });
    expect(count(gw, 'session_watch_cursors')).toBe(0);
  });

  it('watching oneself gives watched: false (spec) and registers nothing', async () => {
    const { gw } = h;
    const r = await gw.tools.call(LEAD, 'sessions_send', {
      sessionKey: LEAD,
      message: 'note to self',
      watch: true,
    });
    expect(r.ok ? r.details : r).toMatchObject({ watched: false });
    expect(count(gw, 'session_watch_cursors')).toBe(0);
  });
});
