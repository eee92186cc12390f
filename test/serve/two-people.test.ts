// A gateway a team shares (issue 30.2), driven as two people drive it: two clients over TLS on
// 127.0.0.x, two accounts from one-time invitations. Each person's step-in is recorded with
// their account as the actor id and pushed live to the other; the consent question a start
// raises goes to the person who started it; the audit view lists who did what; a revoked person
// is disconnected at once; a wrong pin is refused before any secret leaves; a client that stops
// reading is disconnected with a reason while the other keeps receiving.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { PushBatch } from '../../shared/ipc/types';
import { connectServe, type ServeClient } from '../../electron/serve/client';
import { startServeGateway, type ServeGateway } from '../../electron/serve/server';
import { collectingLogger, tempDir, waitFor } from '../helpers/gateway';
import { MAIN } from '../helpers/spec';

const AGENT = path.resolve('test/fixtures/acp-agent/agent.mjs');
let serve: ServeGateway | undefined;
const clients: ServeClient[] = [];
const dirs: string[] = [];
afterEach(async () => {
  clients.splice(0).forEach((c) => c.close());
  await serve?.close();
  serve = undefined;
  dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true }));
});

async function start(extra: { maxQueueBytes?: number } = {}) {
  const dataDir = tempDir();
  dirs.push(dataDir);
  serve = await startServeGateway({
    dataDir,
    host: '127.0.0.2',
    port: 0,
    ...extra,
    gateway: { autoStart: false, logger: collectingLogger() },
  });
  return serve;
}

/** A person's client with every push it received. */
function person(
  s: ServeGateway,
  who: { credential?: string; invite?: { code: string; name: string }; pin?: string },
) {
  const pushes: PushBatch['events'] = [];
  const ended: string[] = [];
  let credential = who.credential;
  const client = connectServe({
    url: s.url,
    ...who,
    pin: who.pin ?? s.fingerprint,
    onEnd: (r) => ended.push(r),
    onCredential: (c) => (credential = c),
  });
  client.subscribe((b) => pushes.push(...b.events));
  clients.push(client);
  const call = async <T>(channel: string, args?: unknown): Promise<T> => {
    const r = await client.invoke(channel, args);
    if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
    return r.value as T;
  };
  return { client, pushes, ended, call, credential: () => credential! };
}

describe('a gateway two people share', () => {
  it('attributes each step-in to its person, pushes it to the other, routes consent and audits', async () => {
    const s = await start();
    expect(s.url).toMatch(/^wss:\/\/127\.0\.0\.2:\d+\/ws$/);
    expect(s.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    const alice = person(s, { invite: { code: s.invite, name: 'Alice' } });
    expect(await alice.client.ready).toMatchObject({ id: 'user:alice', name: 'Alice', role: 'owner' });
    const invite = await alice.call<{ code: string; role: string }>('accounts:invite');
    expect(invite.role).toBe('member');
    const bob = person(s, { invite: { code: invite.code, name: 'Bob' } });
    expect(await bob.client.ready).toMatchObject({ id: 'user:bob', role: 'member' });
    // An invitation is good once.
    const again = person(s, { invite: { code: invite.code, name: 'Mallory' } });
    await expect(again.client.ready).rejects.toThrow('unknown, used or expired invitation');

    // Alice sets up an ACP agent; the consent question goes to her, not to Bob. Then she starts it.
    const saved = alice.call('acp:profiles:save', {
      id: 'fixture',
      name: 'Fixture agent',
      command: process.execPath,
      args: [AGENT],
      env: {},
    });
    const question = await waitFor(
      () => alice.pushes.find((e) => e.type === 'consent:request'),
      10_000,
      'the consent question',
    );
    if (question.type !== 'consent:request') throw new Error('unreachable');
    expect(question.request.program).toBe(process.execPath);
    expect(await bob.call('consent:list')).toEqual([]);
    expect(bob.pushes.some((e) => e.type === 'consent:request')).toBe(false);
    await expect(
      bob.call('consent:respond', { requestId: question.request.id, allow: true }),
    ).rejects.toThrow('forbidden: this consent question was asked of someone else');
    await alice.call('consent:respond', { requestId: question.request.id, allow: true });
    await saved;
    const cwd = tempDir();
    dirs.push(cwd);
    const { key } = await alice.call<{ key: string }>('sessions:start', {
      acpProfileId: 'fixture',
      message: 'hello',
      parentKey: MAIN,
      cwd,
    });
    expect(key).toMatch(/^agent:main:acp:[0-9a-f]{8}$/);

    // Bob steps in, then Alice: each recorded with its account, each pushed to the other.
    await waitFor(() => s.host.gateway.runtime.sessionStatus(key) === 'idle', 15_000, 'the first turn');
    await bob.call('human:send', { sessionKey: key, text: 'bob here' });
    await waitFor(() => s.host.gateway.runtime.sessionStatus(key) === 'idle', 15_000, "bob's turn");
    await alice.call('human:send', { sessionKey: key, text: 'alice here' });
    const humans = s.host.gateway.state
      .changesSince(key, 0)
      .events.filter((e) => e.kind === 'human_direct_message')
      .map((e) => e.actorId);
    expect(humans).toEqual(['user:alice', 'user:bob', 'user:alice']);
    const seenBy = (p: typeof alice, actorId: string) => () =>
      p.pushes.some(
        (e) =>
          e.type === 'state:event' && e.event.kind === 'human_direct_message' && e.event.actorId === actorId,
      );
    await waitFor(seenBy(alice, 'user:bob'), 5000, "bob's step-in pushed to alice");
    await waitFor(seenBy(bob, 'user:alice'), 5000, "alice's step-in pushed to bob");
    const transcript = s.host.gateway.transcripts.all(key).filter((m) => m.role === 'user');
    expect(transcript.map((m) => `${m.actorId}: ${m.text}`)).toEqual([
      'user:alice: hello',
      'user:bob: bob here',
      'user:alice: alice here',
    ]);

    // Bob's turn asks an ACP permission: it goes to Bob, who started that run, not to Alice.
    await waitFor(() => s.host.gateway.runtime.sessionStatus(key) === 'idle', 15_000, "alice's turn");
    await bob.call('human:send', { sessionKey: key, text: 'permission' });
    const asked = await waitFor(
      () => bob.pushes.find((e) => e.type === 'acp:permission'),
      15_000,
      'the permission request at bob',
    );
    if (asked.type !== 'acp:permission') throw new Error('unreachable');
    expect(asked.request).toMatchObject({ sessionKey: key, title: 'Delete build/' });
    expect(asked.request.askedOf).toBeUndefined();
    // Alice sees that Bob was asked, and may not answer.
    const atAlice = await waitFor(
      () => alice.pushes.find((e) => e.type === 'acp:permission'),
      5000,
      'the request shown to alice',
    );
    expect(atAlice).toEqual({ type: 'acp:permission', request: { ...asked.request, askedOf: 'Bob' } });
    expect(await alice.call('acp:permissions:list')).toEqual([{ ...asked.request, askedOf: 'Bob' }]);
    await expect(
      alice.call('acp:permissions:respond', { requestId: asked.request.id, optionId: 'allow-once' }),
    ).rejects.toThrow('forbidden: this permission request was asked of someone else');
    // Bob's link drops: the request stays his, and the list gives it back when he reconnects.
    bob.client.close();
    const bobAgain = person(s, { credential: bob.credential() });
    await bobAgain.client.ready;
    expect(await bobAgain.call('acp:permissions:list')).toEqual([asked.request]);
    await bobAgain.call('acp:permissions:respond', { requestId: asked.request.id, optionId: 'allow-once' });
    await waitFor(() => s.host.gateway.runtime.sessionStatus(key) === 'idle', 15_000, "bob's second turn");
    // The answer is pushed to everyone: Alice sees the request resolved live.
    await waitFor(
      () =>
        alice.pushes.some((e) => e.type === 'acp:permission-resolved' && e.requestId === asked.request.id),
      5000,
      'the resolution pushed to alice',
    );
    expect(s.host.gateway.transcripts.all(key).at(-1)?.text).toBe('permission: selected allow-once');

    // The audit view: who did what, newest first, with times.
    const audit =
      await bobAgain.call<{ accountId: string; action: string; target?: string; at: number }[]>('audit:list');
    expect(audit.map((a) => `${a.accountId} ${a.action} ${a.target ?? ''}`.trim())).toEqual([
      `user:bob consent ${asked.request.id}`,
      `user:bob send ${key}`,
      `user:alice send ${key}`,
      `user:bob send ${key}`,
      `user:alice start ${key}`,
      `user:alice consent ${question.request.id}`,
      'user:alice invite',
    ]);
    expect(audit.every((a) => Number.isInteger(a.at) && a.at > 0)).toBe(true);

    // Bob's next run asks again; then only an owner revokes, a revoked person is cut off at once
    // and stays out, and the request that waited for him goes to the owners.
    await bobAgain.call('human:send', { sessionKey: key, text: 'permission' });
    const second = await waitFor(
      () => bobAgain.pushes.find((e) => e.type === 'acp:permission' && e.request.id !== asked.request.id),
      15_000,
      'the second request at bob',
    );
    if (second.type !== 'acp:permission') throw new Error('unreachable');
    await expect(bobAgain.call('accounts:revoke', { accountId: 'user:alice' })).rejects.toThrow(
      'forbidden: only an owner revokes a credential',
    );
    expect(await alice.call('accounts:revoke', { accountId: 'user:bob' })).toEqual({ revoked: true });
    await waitFor(() => bobAgain.ended[0], 3000, 'bob disconnected');
    expect(bobAgain.ended).toEqual(['credential revoked']);
    const back = person(s, { credential: bob.credential() });
    await expect(back.client.ready).rejects.toThrow('unauthorized: unknown or revoked credential');
    expect((await alice.call<{ action: string }[]>('audit:list'))[0]).toMatchObject({
      action: 'revoke',
      target: 'user:bob',
    });
    await waitFor(
      () =>
        alice.pushes.some(
          (e) => e.type === 'acp:permission' && e.request.id === second.request.id && !e.request.askedOf,
        ),
      5000,
      "bob's waiting request handed to alice",
    );
    expect(await alice.call('acp:permissions:list')).toEqual([second.request]);
    await alice.call('acp:permissions:respond', { requestId: second.request.id });
    await waitFor(() => s.host.gateway.runtime.sessionStatus(key) === 'idle', 15_000, "bob's last turn");
    expect(s.host.gateway.transcripts.all(key).at(-1)?.text).toBe('permission: selected reject-once');
  }, 60_000);

  it('refuses a wrong pin before the invitation leaves, and cuts a client that stops reading', async () => {
    const s = await start({ maxQueueBytes: 64 * 1024 });
    const wrong = person(s, { invite: { code: s.invite, name: 'Alice' }, pin: `sha256:${'0'.repeat(64)}` });
    await expect(wrong.client.ready).rejects.toThrow(
      `certificate pin mismatch: the gateway presented ${s.fingerprint}, expected sha256:${'0'.repeat(64)}`,
    );
    // The code never reached the gateway: it is still good (pins may be pasted with colons, in capitals).
    const pasted = s.fingerprint.slice(7).toUpperCase().match(/../g)!.join(':');
    const alice = person(s, { invite: { code: s.invite, name: 'Alice' }, pin: `sha256:${pasted}` });
    await alice.client.ready;
    const invite = await alice.call<{ code: string }>('accounts:invite');
    const bob = person(s, { invite: { code: invite.code, name: 'Bob' } });
    await bob.client.ready;

    // A third client signs in and stops reading; live output keeps flowing to the others.
    const slow = new WebSocket(s.url, { rejectUnauthorized: false });
    await new Promise((r) => slow.once('open', r));
    const closed = new Promise<[number, string]>((r) =>
      slow.once('close', (c, why) => r([c, why.toString()])),
    );
    slow.send(JSON.stringify({ type: 'hello', credential: bob.credential() }));
    await new Promise((r) => slow.once('message', r));
    slow.pause();
    expect(s.connections()).toBe(3);
    const text = 'x'.repeat(64 * 1024);
    let emitted = 0;
    while (s.connections() === 3 && emitted < 2000) {
      const runId = `r${emitted++}`;
      s.host.gateway.events.emit({ type: 'run:delta', sessionKey: MAIN, runId, stream: 'text', text });
      await new Promise((r) => setTimeout(r, 2));
    }
    slow.resume();
    expect(s.connections()).toBe(2);
    expect(await closed).toEqual([4008, 'too slow: send queue full']);
    await waitFor(
      () => alice.pushes.filter((e) => e.type === 'run:delta').length === emitted,
      10_000,
      'every delta at alice',
    );
    expect(bob.ended).toEqual([]);
  }, 30_000);
});
