import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAIN, ensureSession, findStrings, openEnv, type Env } from './harness';

const LEAD = 'agent:main:lead';
let env: Env;
beforeEach(() => {
  env = openEnv();
  ensureSession(env.gw, MAIN);
  ensureSession(env.gw, LEAD);
});
afterEach(() => env.close());

async function spawnFrom(caller: string) {
  const r = await env.gw.tools.call(caller, 'sessions_spawn', { task: 'wait' });
  if (!r.ok) throw new Error(r.error);
  return findStrings(r.details, /^agent:main:subagent:/)[0] as string;
}

describe('clean-up stays clean', () => {
  // spec: "cursors where either side is a deleted session are removed with it"
  it('a deleted parent holds no cursor on its child afterwards, even when a human messages the child', async () => {
    const { gw } = env;
    const kid = await spawnFrom(LEAD);
    expect(gw.state.cursor(LEAD, kid)).toBeDefined();
    gw.sessions.delete(LEAD);
    expect(gw.sessions.get(LEAD)).toBeUndefined();
    expect(gw.state.cursor(LEAD, kid)).toBeUndefined();
    await gw.human.send(kid, 'a human steps in');
    expect(gw.state.cursor(LEAD, kid)).toBeUndefined();
    expect(gw.notices.peek(LEAD)).toHaveLength(0);
  });
});

describe('clean-up stays clean (goal changes)', () => {
  it("a deleted parent is not re-subscribed by its child's goal change", async () => {
    const { gw } = env;
    const kid = await spawnFrom(LEAD);
    gw.sessions.delete(LEAD);
    const r = await gw.tools.call(kid, 'goal_set', { objective: 'carry on alone' });
    expect(r.ok).toBe(true);
    expect(gw.state.cursor(LEAD, kid)).toBeUndefined();
    expect(gw.notices.peek(LEAD)).toHaveLength(0);
  });
});
