// A login terminal on a shared gateway is its starter's alone (what it prints can be a one-time
// code, what is typed into it a secret): others neither see its output nor may type, read or close.
import { describe, expect, it } from 'vitest';
import type { GatewayEvent } from '../../electron/gateway/types';
import type { Account } from '../../electron/serve/accounts';
import { createLoginRouting } from '../../electron/serve/login-routing';

const person = (id: string, role: Account['role']): Account => ({ id, name: id, role, createdAt: 1 });
const alice = person('user:alice', 'owner');
const bob = person('user:bob', 'member');
const KEY = 'agent:main:acp:0000beef';
const output: GatewayEvent = {
  type: 'login:output',
  id: 'login-1',
  sessionKey: KEY,
  at: 0,
  data: 'Code: 1234',
};
const exit: GatewayEvent = { type: 'login:exit', id: 'login-1', sessionKey: KEY, exitCode: 0, signal: null };
const FORBIDDEN = {
  ok: false,
  error: { code: 'forbidden', message: 'this login terminal is someone else’s' },
};

describe('login terminals on a shared gateway', () => {
  it('reach only the person who started them', () => {
    const r = createLoginRouting();
    r.after(bob, 'acp:login:start', { sessionKey: KEY, methodId: 'claude-login' }, { id: 'login-1' });
    expect([r.visible(bob, output), r.visible(alice, output)]).toEqual([true, false]);
    expect([r.visible(bob, exit), r.visible(alice, exit)]).toEqual([true, false]);
    for (const channel of ['acp:login:get', 'acp:login:input', 'acp:login:resize', 'acp:login:close']) {
      expect(r.refuse(alice, channel, { id: 'login-1', data: 'x' })).toEqual(FORBIDDEN);
      expect(r.refuse(bob, channel, { id: 'login-1', data: 'x' })).toBeUndefined();
    }
    // Other events and other channels pass; an id it never saw is the gateway's to refuse.
    expect(r.visible(alice, { type: 'session:deleted', sessionKey: KEY } as GatewayEvent)).toBe(true);
    expect(r.refuse(alice, 'acp:login:get', { id: 'login-unknown' })).toBeUndefined();
    expect(r.refuse(alice, 'human:send', { id: 'login-1' })).toBeUndefined();
  });

  it('a failed start gives nobody a terminal; a closed one is forgotten', () => {
    const r = createLoginRouting();
    r.after(bob, 'acp:login:start', {}, undefined);
    r.after(bob, 'acp:login:start', {}, { id: 'login-1' });
    r.after(bob, 'acp:login:close', { id: 'login-1' }, { closed: true });
    expect(r.refuse(alice, 'acp:login:get', { id: 'login-1' })).toBeUndefined();
  });
});
