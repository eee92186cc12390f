// Human turns (spec: "Human turns on unwatched sessions"; contract: human.send): recorded as
// human_direct_message only when the session has a parent or at least one watcher.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { count, noticeFor, openHarness, T0, type Harness } from './helpers';

// The parent is a sub-agent: a main-session parent would be woken, and its heartbeat turn could
// drain the notice before the assertions read it.
const LEAD = 'agent:main:subagent:lead';
const CHILD = 'agent:main:subagent:child';
const LONE = 'agent:main:subagent:lone';

let h: Harness;
beforeEach(() => {
  h = openHarness();
  h.gw.sessions.create({ key: LEAD });
  h.gw.sessions.create({ key: CHILD, parentKey: LEAD });
  h.gw.sessions.create({ key: LONE });
});
afterEach(() => {
  h.dispose();
});

describe('human.send', () => {
  it('writes nothing for a session with neither parent nor watcher', async () => {
    await h.gw.human.send(LONE, 'hello there');
    expect(h.gw.state.version(LONE)).toBe(0);
    expect(count(h.gw, 'session_state_events')).toBe(0);
  });

  it('records a spawned session, notifying its parent, with the channel in summary and payload', async () => {
    const { gw } = h;
    await gw.human.send(CHILD, 'please stop and use the other API');
    expect(gw.state.changesSince(CHILD, 0).events).toEqual([
      {
        sequence: 1,
        kind: 'human_direct_message',
        actorType: 'human',
        actorId: 'local-user',
        occurredAt: T0,
        summary: 'human message via desktop',
        payload: { channel: 'desktop' },
      },
    ]);
    // Never message content in the log.
    const raw = JSON.stringify(gw.db.prepare('SELECT * FROM session_state_events').all());
    expect(raw).not.toContain('other API');
    expect(gw.notices.peek(LEAD)).toEqual([noticeFor(CHILD, 0)]);
  });

  it('records a watched session, and names the given channel', async () => {
    const { gw } = h;
    expect(gw.state.registerWatch(LEAD, LONE)).toBe(true);
    await gw.human.send(LONE, 'status?', { channel: 'claude' });
    const [e] = gw.state.changesSince(LONE, 0).events;
    expect(e).toMatchObject({
      sequence: 1,
      summary: 'human message via claude',
      payload: { channel: 'claude' },
    });
    expect(gw.state.cursor(LEAD, LONE)).toEqual({ lastSeen: 0, notified: 1, material: 1 });
  });
});
