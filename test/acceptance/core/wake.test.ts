import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MAIN,
  ensureSession,
  humanEvent,
  noticeText,
  openEnv,
  stateEntries,
  waitFor,
  type Env,
} from './harness';

const PEER = 'agent:main:peer';
const SUB = 'agent:main:subagent:lead';
let env: Env;
beforeEach(() => {
  env = openEnv({ timers: 'fake' });
  ensureSession(env.gw, MAIN);
  ensureSession(env.gw, PEER);
  ensureSession(env.gw, SUB, MAIN);
});
afterEach(() => env.close());

describe('wake', () => {
  it('a main-session watcher is woken once within 20 s; a sub-agent watcher is not woken', async () => {
    const { gw } = env;
    gw.state.registerWatch(MAIN, PEER);
    gw.state.registerWatch(SUB, PEER);
    const L = gw.state.cursor(SUB, PEER)!.lastSeen;
    const s1 = humanEvent(gw, PEER).sequence;
    expect(stateEntries(gw, SUB).map((e) => e.text)).toEqual([noticeText(PEER, L)]);
    // the main watcher's heartbeat turn (after the 1 s grace) drains, and so acknowledges, its notice
    env.tick(1_000);
    await waitFor(() => stateEntries(gw, MAIN).length === 0 && gw.state.cursor(MAIN, PEER)!.lastSeen === s1);
    // within 20 s (fake clock): a second change is queued but not woken again
    env.advance(5_000);
    const s2 = humanEvent(gw, PEER).sequence;
    expect(stateEntries(gw, MAIN).map((e) => e.text)).toEqual([noticeText(PEER, s1)]);
    env.tick(2_500);
    await gw.runtime.idle();
    expect(stateEntries(gw, MAIN).map((e) => e.text)).toEqual([noticeText(PEER, s1)]);
    expect(gw.state.cursor(MAIN, PEER)!.lastSeen).toBe(s1);
    // the sub-agent watcher was never woken: its notice is still pending
    expect(stateEntries(gw, SUB).map((e) => e.text)).toEqual([noticeText(PEER, L)]);
    expect(gw.state.cursor(SUB, PEER)!.lastSeen).toBe(L);
    // after the window, a fresh notice wakes the main watcher again
    gw.notices.drain(MAIN);
    expect(gw.state.cursor(MAIN, PEER)!.lastSeen).toBe(s2);
    env.advance(21_000);
    const s3 = humanEvent(gw, PEER).sequence;
    expect(stateEntries(gw, MAIN)).toHaveLength(1);
    env.tick(1_000);
    await waitFor(() => stateEntries(gw, MAIN).length === 0 && gw.state.cursor(MAIN, PEER)!.lastSeen === s3);
  });
});
