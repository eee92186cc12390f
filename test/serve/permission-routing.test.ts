// Who a permission request waits for on a shared gateway, along the cases two clients cannot
// easily stage (serve/two-people.test.ts walks the common path): a run nobody started asks the
// owners, a request raised before the router saw its run goes to the last person who made the
// session run, a failed send changes nothing, and what the router holds is released when runs end,
// requests are answered and sessions are deleted; a revoked person's consent questions go to the
// owners too.
import { describe, expect, it } from 'vitest';
import type { GatewayEvent } from '../../electron/gateway/types';
import type { Account } from '../../electron/serve/accounts';
import { acting, createConsentRouting } from '../../electron/serve/people';
import { createPermissionRouting } from '../../electron/serve/permission-routing';

const person = (id: string, name: string, role: Account['role']): Account => ({
  id,
  name,
  role,
  createdAt: 1,
});
const alice = person('user:alice', 'Alice', 'owner');
const bob = person('user:bob', 'Bob', 'member');
const KEY = 'agent:main:acp:0000beef';

const run = (runId: string, endedAt?: number): GatewayEvent => ({
  type: 'run:changed',
  run: {
    runId,
    sessionKey: KEY,
    status: endedAt === undefined ? 'running' : 'done',
    startedAt: 1,
    ...(endedAt !== undefined ? { endedAt } : {}),
    inputTokens: 0,
    outputTokens: 0,
  } as Extract<GatewayEvent, { type: 'run:changed' }>['run'],
});
const ask = (id: string): GatewayEvent => ({
  type: 'acp:permission',
  request: { id, sessionKey: KEY, title: 'Delete build/', options: [], createdAt: 1 },
});

function router() {
  const revoked = new Set<string>();
  const r = createPermissionRouting({
    live: (id) => [alice, bob].find((a) => a.id === id && !revoked.has(id)),
  });
  return { r, revoked };
}

describe('permission routing on a shared gateway', () => {
  it('asks the owners when nobody started the run, and the starter when somebody did', () => {
    const { r } = router();
    r.observe(run('r1'));
    r.observe(ask('p1'));
    expect([r.mayAnswer(alice, 'p1'), r.mayAnswer(bob, 'p1')]).toEqual([true, false]);
    expect(r.shape(bob, ask('p1'))).toMatchObject({ request: { askedOf: 'The owners' } });
    // Bob writes while that run goes on: his message starts the next run, which is his.
    r.before(bob, 'human:send', { sessionKey: KEY });
    r.observe(ask('p2'));
    expect(r.mayAnswer(bob, 'p2')).toBe(false);
    r.observe(run('r1', 2));
    r.observe(run('r2'));
    r.observe(ask('p3'));
    expect([r.mayAnswer(alice, 'p3'), r.mayAnswer(bob, 'p3')]).toEqual([false, true]);
    expect(r.shape(alice, ask('p3'))).toMatchObject({ request: { askedOf: 'Bob' } });
    expect(r.shape(bob, ask('p3'))).toEqual(ask('p3'));
  });

  it('gives a request raised before its run was seen to the last person who made the session run', () => {
    const { r, revoked } = router();
    r.before(bob, 'runs:retry', { sessionKey: KEY });
    r.observe(ask('p1'));
    expect(r.mayAnswer(bob, 'p1')).toBe(true);
    // Revoked: the owners answer it.
    revoked.add(bob.id);
    expect(r.askedOfPerson(bob.id)).toEqual(['p1']);
    expect([r.mayAnswer(alice, 'p1'), r.mayAnswer(bob, 'p1')]).toEqual([true, false]);
  });

  it('forgets a failed send, and releases runs, requests and sessions', () => {
    const { r } = router();
    r.before(alice, 'human:send', { sessionKey: KEY });
    r.before(bob, 'human:send', { sessionKey: KEY })();
    r.observe(run('r1'));
    r.observe(ask('p1'));
    expect(r.mayAnswer(alice, 'p1')).toBe(true);
    expect(r.held()).toEqual({ sessions: 1, runs: 1, requests: 1 });
    r.observe({ type: 'acp:permission-resolved', requestId: 'p1', sessionKey: KEY, decision: 'rejected' });
    r.observe(run('r1', 2));
    expect(r.held()).toEqual({ sessions: 1, runs: 0, requests: 0 });
    r.observe(run('r2'));
    r.observe({ type: 'session:deleted', sessionKey: KEY });
    expect(r.held()).toEqual({ sessions: 0, runs: 0, requests: 0 });
  });

  it("hands a revoked person's consent question to the owners", () => {
    const revoked = new Set<string>();
    const consent = createConsentRouting({
      live: (id) => [alice, bob].find((a) => a.id === id && !revoked.has(id)),
    });
    acting.run(bob, () => consent.asked('c1'));
    consent.asked('c2'); // asked by nobody: an agent's
    expect([consent.mayAnswer(alice, 'c1'), consent.mayAnswer(bob, 'c1')]).toEqual([false, true]);
    expect([consent.mayAnswer(alice, 'c2'), consent.mayAnswer(bob, 'c2')]).toEqual([true, false]);
    revoked.add(bob.id);
    expect(consent.askedByPerson(bob.id)).toEqual(['c1']);
    expect([consent.mayAnswer(alice, 'c1'), consent.mayAnswer(bob, 'c1')]).toEqual([true, false]);
  });
});
