// Issue 4: link lifecycle details from the spec (watched links only, link removal after
// upstream_missing, rewrite re-baseline, restart recovery, session_status payload filter).
import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MAIN,
  OpenCodeDb,
  adoptedKey,
  claudeSession,
  contextKeyFor,
  makeEnv,
  noticeText,
  ofKind,
  piSession,
  tick,
  type Env,
} from './helpers';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.cleanup());

describe('adopted-session links', () => {
  it('an unwatched adopted session records no human_direct_message (watcher removed by reset)', async () => {
    const u = claudeSession(env.roots.claude);
    const gw = env.open();
    gw.catalog.adopt({ provider: 'claude', threadId: u.threadId });
    const key = adoptedKey('claude', u.threadId);
    gw.sessions.reset(MAIN); // removes every cursor MAIN holds
    expect(gw.state.cursor(MAIN, key)).toBeUndefined();
    u.human('nobody watches');
    await tick(env, gw, 2);
    expect(ofKind(gw, key, 'human_direct_message')).toHaveLength(0);
  });

  it('after upstream_missing the link is gone: a recreated file is not monitored until adopted again', async () => {
    const u = piSession(env.roots.pi);
    const gw = env.open();
    gw.catalog.adopt({ provider: 'pi', threadId: u.threadId });
    const saved = fs.readFileSync(u.file);
    fs.rmSync(u.file);
    await tick(env, gw, 3);
    const key = adoptedKey('pi', u.threadId);
    expect(ofKind(gw, key, 'upstream_missing')).toHaveLength(1);
    fs.writeFileSync(u.file, saved);
    u.human('back');
    await tick(env, gw, 2);
    expect(ofKind(gw, key, 'human_direct_message')).toHaveLength(0);
    expect(ofKind(gw, key, 'upstream_missing')).toHaveLength(1);
  });

  it('a file rewritten shorter is re-baselined, not parsed from a stale offset', async () => {
    const u = piSession(env.roots.pi);
    const gw = env.open();
    for (let i = 0; i < 20; i++) u.agent('long answer '.repeat(50));
    gw.catalog.adopt({ provider: 'pi', threadId: u.threadId });
    const lines = fs.readFileSync(u.file, 'utf8').split('\n');
    fs.writeFileSync(u.file, lines.slice(0, 3).join('\n') + '\n'); // rewrite (e.g. migration): much shorter
    await tick(env, gw);
    const key = adoptedKey('pi', u.threadId);
    expect(ofKind(gw, key, 'human_direct_message')).toHaveLength(0);
    u.human('after rewrite');
    await tick(env, gw);
    expect(ofKind(gw, key, 'human_direct_message')).toHaveLength(1);
  });

  it('opencode: a user message whose parts are not written yet is counted once, when they arrive', async () => {
    const oc = new OpenCodeDb(env.roots.opencode, env.clock);
    try {
      const u = oc.session();
      const gw = env.open();
      gw.catalog.adopt({ provider: 'opencode', threadId: u.threadId });
      const t = env.clock.t;
      oc.db
        .prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?)')
        .run(
          'msg_zzzzzzzzzzzz00000000000001',
          u.threadId,
          t,
          t,
          JSON.stringify({ role: 'user', time: { created: t } }),
        );
      oc.db.prepare('UPDATE session SET time_updated = ? WHERE id = ?').run(t, u.threadId);
      await gw.catalog.tick();
      env.clock.t += 5000;
      oc.db
        .prepare(
          'INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?,?)',
        )
        .run(
          'prt_zzzzzzzzzzzz00000000000001',
          'msg_zzzzzzzzzzzz00000000000001',
          u.threadId,
          t + 5,
          t + 5,
          JSON.stringify({ type: 'text', text: 'typed in opencode' }),
        );
      oc.db.prepare('UPDATE session SET time_updated = ? WHERE id = ?').run(t + 5, u.threadId);
      await tick(env, gw, 2);
      expect(ofKind(gw, adoptedKey('opencode', u.threadId), 'human_direct_message')).toHaveLength(1);
    } finally {
      oc.close();
    }
  });

  it('a pending notice from upstream activity is re-queued after a restart', async () => {
    const u = claudeSession(env.roots.claude);
    let gw = env.open();
    gw.catalog.adopt({ provider: 'claude', threadId: u.threadId });
    const key = adoptedKey('claude', u.threadId);
    const L = gw.state.cursor(MAIN, key)!.lastSeen;
    u.human('hi');
    await tick(env, gw);
    gw.close();
    gw = env.open();
    const mine = gw.notices.peek(MAIN).filter((n) => n.contextKey === contextKeyFor(key));
    expect(mine).toEqual([{ text: noticeText(key, L), contextKey: contextKeyFor(key) }]);
  });

  it('session_status filters payloads to outcome/channel/turns (adopted payload not exposed)', async () => {
    const u = claudeSession(env.roots.claude);
    const gw = env.open();
    gw.catalog.adopt({ provider: 'claude', threadId: u.threadId });
    u.human('a');
    u.human('b');
    await tick(env, gw);
    const key = adoptedKey('claude', u.threadId);
    const res = await gw.tools.call(MAIN, 'session_status', { sessionKey: key, changesSince: 0 });
    expect(res.ok).toBe(true);
    const evs = (
      res as { details: { stateChanges: { events: { kind: string; payload?: Record<string, unknown> }[] } } }
    ).details.stateChanges.events;
    for (const e of evs)
      for (const k of Object.keys(e.payload ?? {}))
        expect(['outcome', 'channel', 'turns'], `${e.kind}.${k}`).toContain(k);
    expect(evs.find((e) => e.kind === 'human_direct_message')?.payload?.turns).toBe(2);
  });
});
