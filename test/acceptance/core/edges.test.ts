/* eslint-disable @typescript-eslint/no-explicit-any -- acceptance suite: tool details are untyped JSON */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGateway } from '../../../electron/gateway';
import {
  DAY,
  MAIN,
  contextKeyFor,
  ensureSession,
  humanEvent,
  noticeText,
  openEnv,
  stateEntries,
  waitFor,
  type Env,
} from './harness';
import path from 'node:path';

const PEER = 'agent:main:peer';
let env: Env;
beforeEach(() => {
  env = openEnv();
  ensureSession(env.gw, MAIN);
  ensureSession(env.gw, PEER);
});
afterEach(() => env.close());

describe('edges of the signal log', () => {
  it('summary is one line of at most 200 characters', () => {
    const ev = env.gw.state.record({
      sessionKey: PEER,
      kind: 'compacted',
      actorType: 'system',
      summary: 'x'.repeat(300) + '\nsecond line',
    });
    if (ev) {
      expect(ev.summary.length).toBeLessThanOrEqual(200);
      expect(ev.summary).not.toMatch(/[\r\n]/);
      const stored = env.gw.state.changesSince(PEER, 0).events[0]!;
      expect(stored.summary.length).toBeLessThanOrEqual(200);
      expect(stored.summary).not.toMatch(/[\r\n]/);
    }
  });

  it('a failed append returns undefined and never throws (bare key without agent id)', () => {
    let r: unknown = 'unset';
    expect(() => {
      r = env.gw.state.record({
        sessionKey: 'global',
        kind: 'compacted',
        actorType: 'system',
        summary: 'session compacted',
      });
    }).not.toThrow();
    expect(r).toBeUndefined();
  });

  it('a key with an invalid agent id is not agent-qualified: cannot watch or be watched', () => {
    const bad = 'agent:' + 'a'.repeat(65) + ':x';
    expect(env.gw.state.registerWatch(MAIN, bad)).toBe(false);
    expect(env.gw.state.registerWatch(bad, PEER)).toBe(false);
    expect(env.gw.state.registerWatch(MAIN, 'agent:-x:y')).toBe(false);
  });

  it('pruning runs after an append once an hour has passed (no explicit prune)', () => {
    const { gw } = env;
    humanEvent(gw, PEER);
    env.advance(31 * DAY);
    gw.state.record({
      sessionKey: 'agent:main:other',
      kind: 'compacted',
      actorType: 'system',
      summary: 'session compacted',
    });
    expect(gw.state.changesSince(PEER, 0).historyGap).toBe(true);
  });

  it('session deletion never sets historyGap on a re-created key', () => {
    const { gw } = env;
    const X = 'agent:main:x';
    ensureSession(gw, X);
    humanEvent(gw, X);
    gw.sessions.delete(X);
    ensureSession(gw, X);
    expect(gw.state.changesSince(X, 0).historyGap).toBe(false);
  });

  it('reset clears the transcript', async () => {
    const { gw } = env;
    await gw.human.send(PEER, 'REMEMBER-ME-42');
    const before = await gw.tools.call(MAIN, 'sessions_history', { sessionKey: PEER });
    expect(JSON.stringify(before)).toContain('REMEMBER-ME-42');
    gw.sessions.reset(PEER);
    const after = await gw.tools.call(MAIN, 'sessions_history', { sessionKey: PEER });
    expect(JSON.stringify(after)).not.toContain('REMEMBER-ME-42');
  });

  it('sessions_send watch registers on the session that actually received the message (agent id case-folded)', async () => {
    const r = await env.gw.tools.call(MAIN, 'sessions_send', {
      sessionKey: 'agent:MAIN:peer',
      message: 'hi',
      watch: true,
    });
    expect(r.ok, JSON.stringify(r)).toBe(true);
    expect(r.ok && (r.details as any).watched).toBe(true);
    expect(env.gw.state.cursor(MAIN, PEER)).toBeDefined();
  });
});

describe('turns drain notices', () => {
  it('a sub-agent watcher sees (and acknowledges) the notice on its next turn', async () => {
    const { gw } = env;
    const SUB = 'agent:main:subagent:s1';
    ensureSession(gw, SUB, MAIN);
    gw.state.registerWatch(SUB, PEER);
    const s = humanEvent(gw, PEER).sequence;
    expect(stateEntries(gw, SUB)).toHaveLength(1);
    await gw.human.send(SUB, 'carry on');
    await waitFor(() => stateEntries(gw, SUB).length === 0 && gw.state.cursor(SUB, PEER)!.lastSeen === s);
  });

  it("a second agent's main session is woken too (wake coalescing is per watcher)", async () => {
    const { gw } = env;
    const OPS = 'agent:ops:main';
    ensureSession(gw, OPS);
    gw.state.registerWatch(MAIN, PEER);
    gw.state.registerWatch(OPS, PEER);
    const s = humanEvent(gw, PEER).sequence;
    await waitFor(
      () => gw.state.cursor(MAIN, PEER)!.lastSeen === s && gw.state.cursor(OPS, PEER)!.lastSeen === s,
    );
  });
});

describe('shared database', () => {
  // Cross-process delivery needs the receiving gateway's timers: with autoStart:false the contract offers
  // no tick to drive it, so the receiver here runs with autoStart:true (the producer keeps autoStart:false).
  // The watcher is the receiver's own session (contract: a session is run by the gateway that created
  // it, and notices.peek/drain show only the notices of sessions a gateway owns).
  it('a notice produced by one gateway is delivered by another gateway on the same database', async () => {
    const { gw } = env;
    const SUBW = 'agent:main:subagent:w';
    const roots = Object.fromEntries(
      ['claude', 'codex', 'opencode', 'pi'].map((k) => [k, path.join(env.dir, 'roots', k)]),
    );
    const receiver = createGateway({
      dataDir: path.join(env.dir, 'data'),
      now: env.now,
      autoStart: true,
      catalogRoots: roots,
    });
    try {
      ensureSession(receiver, SUBW, MAIN);
      receiver.state.registerWatch(SUBW, PEER); // sub-agent watcher: never woken, so its queue is observable
      const L = receiver.state.cursor(SUBW, PEER)!.lastSeen;
      humanEvent(gw, PEER);
      await waitFor(() => stateEntries(receiver, SUBW).length === 1);
      expect(receiver.notices.peek(SUBW)).toEqual([
        { text: noticeText(PEER, L), contextKey: contextKeyFor(PEER) },
      ]);
      expect(gw.notices.peek(SUBW)).toEqual([]); // the producer does not run that watcher
    } finally {
      receiver.close();
    }
  });
});
