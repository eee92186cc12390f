// Issue 4 "done when": adopt one session per provider, see one human_direct_message per
// session and one notice per watcher; delete the sources and see upstream_missing once each
// after three checks.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MAIN,
  OpenCodeDb,
  PROVIDERS,
  T0,
  adoptedKey,
  claudeSession,
  contextKeyFor,
  makeEnv,
  makeUpstream,
  noticeText,
  ofKind,
  tick,
  type Env,
  type Gw,
  type Provider,
  type Upstream,
} from './helpers';

let env: Env;
let oc: OpenCodeDb;
beforeEach(() => {
  env = makeEnv();
  oc = new OpenCodeDb(env.roots.opencode, env.clock);
});
afterEach(() => {
  oc.close();
  env.cleanup();
});

function adoptAll(gw: Gw, ups: Upstream[]) {
  for (const u of ups) gw.catalog.adopt({ provider: u.provider, threadId: u.threadId });
}

describe('catalog: list and adopt one session per provider', () => {
  it('lists every fixture session with provider and threadId', () => {
    const ups = PROVIDERS.map((p) => makeUpstream(env, p, oc));
    const gw = env.open();
    const rows = gw.catalog.list() as { provider: string; threadId: string }[];
    for (const u of ups)
      expect(rows.filter((r) => r.provider === u.provider && r.threadId === u.threadId)).toHaveLength(1);
    expect(rows).toHaveLength(4);
  });

  it('adopt creates agent:main:adopted:<provider>:<threadId>, records adopted and registers agent:main:main', async () => {
    const ups = PROVIDERS.map((p) => makeUpstream(env, p, oc));
    const gw = env.open();
    for (const u of ups) {
      await gw.catalog.adopt({ provider: u.provider, threadId: u.threadId });
      const key = adoptedKey(u.provider, u.threadId);
      expect(gw.sessions.get(key), key).toBeDefined();
      const adopted = ofKind(gw, key, 'adopted');
      expect(adopted).toHaveLength(1);
      expect(adopted[0].actorType).toBe('human');
      expect(adopted[0].summary).toBe(`adopted from ${u.provider}`);
      expect(adopted[0].payload?.catalogId).toBe(u.provider);
      expect(typeof adopted[0].payload?.hostId).toBe('string');
      expect(gw.state.cursor(MAIN, key)).toBeDefined();
      // adopted is log-only: no notice
      expect(gw.notices.peek(MAIN).filter((n) => n.contextKey === contextKeyFor(key))).toHaveLength(0);
    }
  });

  it('adopting an unknown thread fails and creates nothing', async () => {
    const gw = env.open();
    const before = gw.sessions.list().length;
    let threw = false;
    try {
      const r: unknown = await gw.catalog.adopt({
        provider: 'claude',
        threadId: '00000000-0000-4000-8000-000000000000',
      });
      threw = r === undefined || r === false || (!!r && (r as { ok?: boolean }).ok === false);
    } catch {
      threw = true;
    }
    expect(threw).toBe(true);
    expect(gw.sessions.list().length).toBe(before);
  });
});

describe('catalog: upstream human activity', () => {
  it('one human_direct_message per session and one notice per watcher/target', async () => {
    const ups = PROVIDERS.map((p) => makeUpstream(env, p, oc));
    const gw = env.open();
    adoptAll(gw, ups);
    await tick(env, gw); // a check with nothing new records nothing
    for (const u of ups)
      expect(ofKind(gw, adoptedKey(u.provider, u.threadId), 'human_direct_message')).toHaveLength(0);
    gw.notices.drain(MAIN);

    const since: Record<string, number> = {};
    for (const u of ups) {
      const key = adoptedKey(u.provider, u.threadId);
      since[key] = gw.state.cursor(MAIN, key)!.lastSeen;
      u.agent('Here is what I found.');
      u.human(`please also check ${u.provider} currency rounding`);
    }
    await tick(env, gw);
    const notices = gw.notices.peek(MAIN);
    for (const u of ups) {
      const key = adoptedKey(u.provider, u.threadId);
      const hdm = ofKind(gw, key, 'human_direct_message');
      expect(hdm, `${u.provider} events`).toHaveLength(1);
      expect(hdm[0].actorType).toBe('human');
      expect(hdm[0].summary).toBe(`human message via ${u.provider}`);
      // Spec: no payload for one turn; the channel is in the summary.
      expect(hdm[0].payload).toBeUndefined();
      const mine = notices.filter((n) => n.contextKey === contextKeyFor(key));
      expect(mine, `${u.provider} notices`).toHaveLength(1);
      expect(mine[0]!.text).toBe(noticeText(key, since[key]!));
      // reconciliation through the agent tool returns the event
      const res = await gw.tools.call(MAIN, 'session_status', { sessionKey: key, changesSince: since[key] });
      expect(res.ok).toBe(true);
      const det = (res as { details: any }).details; // eslint-disable-line @typescript-eslint/no-explicit-any
      expect(det.stateChanges.events.map((e: { kind: string }) => e.kind)).toContain('human_direct_message');
    }
    // nothing new → nothing recorded, no extra notice
    await tick(env, gw, 2);
    for (const u of ups)
      expect(ofKind(gw, adoptedKey(u.provider, u.threadId), 'human_direct_message')).toHaveLength(1);
    expect(gw.notices.peek(MAIN).length).toBe(notices.length);
  });

  it('two human turns in one check → one event with payload.turns 2', async () => {
    const ups = PROVIDERS.map((p) => makeUpstream(env, p, oc));
    const gw = env.open();
    adoptAll(gw, ups);
    for (const u of ups) {
      u.human('first');
      u.agent('ok');
      u.human('second');
    }
    await tick(env, gw);
    for (const u of ups) {
      const hdm = ofKind(gw, adoptedKey(u.provider, u.threadId), 'human_direct_message');
      expect(hdm, u.provider).toHaveLength(1);
      expect(hdm[0].payload, u.provider).toEqual({ turns: 2 });
    }
  });

  it('agent-only upstream activity records nothing', async () => {
    const ups = PROVIDERS.map((p) => makeUpstream(env, p, oc));
    const gw = env.open();
    adoptAll(gw, ups);
    for (const u of ups) u.agent('still working');
    await tick(env, gw);
    for (const u of ups)
      expect(ofKind(gw, adoptedKey(u.provider, u.threadId), 'human_direct_message')).toHaveLength(0);
  });
});

describe('catalog: upstream_missing', () => {
  it('deleted sources → exactly one upstream_missing each after three checks, notice to the watcher', async () => {
    const ups = PROVIDERS.map((p) => makeUpstream(env, p, oc));
    const gw = env.open();
    adoptAll(gw, ups);
    await tick(env, gw);
    gw.notices.drain(MAIN);
    for (const u of ups) u.remove();
    const missing = (p: Provider, id: string) => ofKind(gw, adoptedKey(p, id), 'upstream_missing');
    await tick(env, gw);
    await tick(env, gw);
    for (const u of ups)
      expect(missing(u.provider, u.threadId), `${u.provider} after 2 checks`).toHaveLength(0);
    await tick(env, gw);
    const notices = gw.notices.peek(MAIN);
    for (const u of ups) {
      const m = missing(u.provider, u.threadId);
      expect(m, `${u.provider} after 3 checks`).toHaveLength(1);
      expect(m[0].actorType).toBe('system');
      expect(m[0].summary).toBe(`upstream missing via ${u.provider}`);
      expect(m[0].payload).toEqual({ channel: u.provider });
      const key = adoptedKey(u.provider, u.threadId);
      expect(
        notices.filter((n) => n.contextKey === contextKeyFor(key)),
        u.provider,
      ).toHaveLength(1);
    }
    await tick(env, gw, 3);
    for (const u of ups) expect(missing(u.provider, u.threadId), `${u.provider} later`).toHaveLength(1);
  });

  it('a successful check resets the missing streak', async () => {
    const u = makeUpstream(env, 'claude');
    const file = (u as unknown as { file: string }).file;
    const gw = env.open();
    gw.catalog.adopt({ provider: 'claude', threadId: u.threadId });
    const saved = fs.readFileSync(file);
    fs.rmSync(file);
    await tick(env, gw, 2);
    fs.writeFileSync(file, saved);
    await tick(env, gw);
    fs.rmSync(file);
    await tick(env, gw, 2);
    expect(ofKind(gw, adoptedKey('claude', u.threadId), 'upstream_missing')).toHaveLength(0);
    await tick(env, gw);
    expect(ofKind(gw, adoptedKey('claude', u.threadId), 'upstream_missing')).toHaveLength(1);
  });

  it('adopting again after upstream_missing creates a fresh link that is monitored', async () => {
    const u = makeUpstream(env, 'pi');
    const file = (u as unknown as { file: string }).file;
    const gw = env.open();
    gw.catalog.adopt({ provider: 'pi', threadId: u.threadId });
    const saved = fs.readFileSync(file);
    fs.rmSync(file);
    await tick(env, gw, 3);
    const key = adoptedKey('pi', u.threadId);
    expect(ofKind(gw, key, 'upstream_missing')).toHaveLength(1);
    fs.writeFileSync(file, saved);
    await gw.catalog.adopt({ provider: 'pi', threadId: u.threadId });
    u.human('back again');
    await tick(env, gw);
    expect(ofKind(gw, key, 'human_direct_message')).toHaveLength(1);
  });
});

describe('catalog: discovery rules', () => {
  it('skips Claude sub-agent files and lists sessions without entrypoint; skips OpenCode child sessions', () => {
    const main = makeUpstream(env, 'claude') as unknown as { dir: string; threadId: string; file: string };
    // current layout: <sessionId>/subagents/agent-<id>.jsonl; old layout: agent-<id>.jsonl beside it
    const sub = path.join(main.dir, main.threadId, 'subagents');
    fs.mkdirSync(sub, { recursive: true });
    const sideRow = (sessionId: string) =>
      JSON.stringify({
        parentUuid: null,
        isSidechain: true,
        userType: 'external',
        cwd: '/x',
        sessionId,
        type: 'user',
        agentId: 'a1b2c3d4',
        message: { role: 'user', content: 'Warmup' },
        uuid: '11111111-1111-4111-8111-111111111111',
        timestamp: new Date(T0 - 3 * 3_600_000).toISOString(),
      }) + '\n';
    fs.writeFileSync(path.join(sub, 'agent-a1b2c3d4e5f6a7b8c.jsonl'), sideRow(main.threadId));
    fs.writeFileSync(path.join(main.dir, 'agent-36541525.jsonl'), sideRow(main.threadId));
    // older Claude Code writes no entrypoint
    const noEntry = claudeSession(env.roots.claude, { entrypoint: null, cwd: '/home/ana/other' });
    const parent = oc.session();
    oc.session({ parentId: parent.threadId });
    const gw = env.open();
    const rows = gw.catalog.list() as { provider: string; threadId: string }[];
    const claude = rows
      .filter((r) => r.provider === 'claude')
      .map((r) => r.threadId)
      .sort();
    expect(claude).toEqual([main.threadId, noEntry.threadId].sort());
    expect(rows.filter((r) => r.provider === 'opencode').map((r) => r.threadId)).toEqual([parent.threadId]);
  });
});
