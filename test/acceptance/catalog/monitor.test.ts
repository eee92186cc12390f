// Issue 4: re-adopting re-baselines; a retried check never records twice; the monitor's
// reading rules (complete lines only, 1 MiB windows, human-activity classification).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MAIN,
  OpenCodeDb,
  T0,
  adoptedKey,
  claudeSession,
  codexSession,
  contextKeyFor,
  makeEnv,
  makeUpstream,
  ofKind,
  piSession,
  tick,
  turnsOf,
  type Env,
  type Gw,
} from './helpers';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.cleanup());

const hdm = (gw: Gw, p: string, id: string) => ofKind(gw, adoptedKey(p, id), 'human_direct_message');
const turns = (gw: Gw, p: string, id: string) => hdm(gw, p, id).reduce((a, e) => a + turnsOf(e), 0);

describe('re-adopting re-baselines', () => {
  for (const p of ['claude', 'codex', 'pi', 'opencode'] as const) {
    it(`${p}: activity before the re-adoption is not reported; activity after is`, async () => {
      const oc = p === 'opencode' ? new OpenCodeDb(env.roots.opencode, env.clock) : undefined;
      try {
        const u = makeUpstream(env, p, oc);
        const gw = env.open();
        gw.catalog.adopt({ provider: p, threadId: u.threadId });
        u.human('typed while Sightline was not looking');
        env.clock.t += 1000;
        gw.catalog.adopt({ provider: p, threadId: u.threadId });
        await tick(env, gw, 2);
        expect(hdm(gw, p, u.threadId)).toHaveLength(0);
        expect(gw.sessions.list().filter((s) => s.key === adoptedKey(p, u.threadId))).toHaveLength(1);
        u.human('after re-adoption');
        await tick(env, gw);
        expect(hdm(gw, p, u.threadId)).toHaveLength(1);
      } finally {
        oc?.close();
      }
    });
  }
});

describe('a retried check never records twice', () => {
  it('concurrent ticks record one event', async () => {
    const u = claudeSession(env.roots.claude);
    const gw = env.open();
    gw.catalog.adopt({ provider: 'claude', threadId: u.threadId });
    u.human('hello');
    await Promise.all([gw.catalog.tick(), gw.catalog.tick(), gw.catalog.tick()]);
    await tick(env, gw);
    expect(hdm(gw, 'claude', u.threadId)).toHaveLength(1);
  });

  it('two gateways sharing one database checking the same link record one event', async () => {
    const ups = [claudeSession(env.roots.claude), codexSession(env.roots.codex), piSession(env.roots.pi)];
    const a = env.open();
    for (const u of ups) a.catalog.adopt({ provider: u.provider, threadId: u.threadId });
    const b = env.open();
    for (const u of ups) u.human('hello from the terminal');
    await Promise.all([a.catalog.tick(), b.catalog.tick()]);
    await Promise.all([a.catalog.tick(), b.catalog.tick()]);
    for (const u of ups) expect(hdm(a, u.provider, u.threadId), u.provider).toHaveLength(1);
  });

  it('a restart does not report the same activity again (marker is durable)', async () => {
    const u = codexSession(env.roots.codex);
    let gw = env.open();
    gw.catalog.adopt({ provider: 'codex', threadId: u.threadId });
    u.human('one');
    await tick(env, gw);
    expect(hdm(gw, 'codex', u.threadId)).toHaveLength(1);
    gw.close();
    gw = env.open();
    await tick(env, gw, 2);
    expect(hdm(gw, 'codex', u.threadId)).toHaveLength(1);
    u.human('two');
    await tick(env, gw);
    expect(hdm(gw, 'codex', u.threadId)).toHaveLength(2);
  });
});

describe('monitor reading rules', () => {
  it('a line still being written is read next time, never skipped', async () => {
    const u = piSession(env.roots.pi);
    const gw = env.open();
    gw.catalog.adopt({ provider: 'pi', threadId: u.threadId });
    const before = fs.readFileSync(u.file).length;
    u.human('split across two writes');
    const full = fs.readFileSync(u.file);
    fs.truncateSync(u.file, before + 20);
    await tick(env, gw);
    expect(hdm(gw, 'pi', u.threadId)).toHaveLength(0);
    fs.appendFileSync(u.file, full.subarray(before + 20));
    await tick(env, gw);
    expect(hdm(gw, 'pi', u.threadId)).toHaveLength(1);
  });

  it('more than 1 MiB of new bytes is read over several checks; nothing is lost', async () => {
    const u = claudeSession(env.roots.claude);
    const gw = env.open();
    gw.catalog.adopt({ provider: 'claude', threadId: u.threadId });
    u.human('first');
    for (let i = 0; i < 30; i++) u.agent('x'.repeat(60_000)); // ~1.8 MB of agent rows
    u.human('second');
    await tick(env, gw, 4);
    expect(turns(gw, 'claude', u.threadId)).toBe(2);
  });

  it('a single row larger than 1 MiB does not block the cursor forever (spec: limits Sightline removes)', async () => {
    const u = claudeSession(env.roots.claude);
    const gw = env.open();
    gw.catalog.adopt({ provider: 'claude', threadId: u.threadId });
    u.agent('y'.repeat(1_500_000));
    u.human('after the huge row');
    await tick(env, gw, 6);
    expect(turns(gw, 'claude', u.threadId)).toBe(1);
  });

  it('occurredAt is clamped to [now − 24 h, now]', async () => {
    const u = codexSession(env.roots.codex); // rows are stamped about T0 − 1 h
    const gw = env.open();
    gw.catalog.adopt({ provider: 'codex', threadId: u.threadId });
    env.clock.t = T0 + 3 * 24 * 3_600_000;
    u.human('late');
    await gw.catalog.tick();
    const e = hdm(gw, 'codex', u.threadId)[0];
    expect(e.occurredAt).toBeGreaterThanOrEqual(env.clock.t - 24 * 3_600_000);
    expect(e.occurredAt).toBeLessThanOrEqual(env.clock.t);
  });

  it('a watched adopted session notifies a second explicit watcher too', async () => {
    const u = piSession(env.roots.pi);
    const gw = env.open();
    gw.catalog.adopt({ provider: 'pi', threadId: u.threadId });
    const key = adoptedKey('pi', u.threadId);
    gw.sessions.create({ key: 'agent:ops:main' });
    expect(gw.state.registerWatch('agent:ops:main', key)).toBe(true);
    u.human('hi');
    await tick(env, gw);
    for (const w of [MAIN, 'agent:ops:main'])
      expect(
        gw.notices.peek(w).filter((n) => n.contextKey === contextKeyFor(key)),
        w,
      ).toHaveLength(1);
  });
});

describe('what counts as human activity (spec + reference)', () => {
  const cRow = (u: { threadId: string }, extra: Record<string, unknown>) =>
    JSON.stringify({
      parentUuid: null,
      isSidechain: false,
      userType: 'external',
      entrypoint: 'cli',
      cwd: '/home/ana/src/ledger-api',
      sessionId: u.threadId,
      version: '2.1.40',
      type: 'user',
      uuid: crypto.randomUUID(),
      timestamp: new Date(T0 - 1000).toISOString(),
      ...extra,
    }) + '\n';

  it('claude: slash command, ! input and interrupt count; tool output, meta, caveats, summaries, tool results, sidechains, task notifications do not', async () => {
    const u = claudeSession(env.roots.claude) as ReturnType<typeof claudeSession> & { file: string };
    const gw = env.open();
    gw.catalog.adopt({ provider: 'claude', threadId: u.threadId });
    const msg = (content: unknown, extra: Record<string, unknown> = {}) =>
      cRow(u, { message: { role: 'user', content }, ...extra });
    const noise =
      msg('<local-command-stdout>Set model to opus</local-command-stdout>') +
      msg('<local-command-stderr>oops</local-command-stderr>') +
      msg('<bash-stdout>hi</bash-stdout><bash-stderr></bash-stderr>') +
      msg('<local-command-caveat>Caveat: …</local-command-caveat>', { isMeta: true }) +
      msg('This session is being continued from a previous conversation that ran out of context. Summary…', {
        isCompactSummary: true,
        isVisibleInTranscriptOnly: true,
      }) +
      msg(
        'This session is being continued from a previous conversation that ran out of context. Older build.',
      ) +
      msg([{ tool_use_id: 't1', type: 'tool_result', content: 'ok' }]) +
      msg('Warmup', { isSidechain: true, agentId: 'a1b2' }) +
      msg('<task-notification>done</task-notification>', { origin: { kind: 'task-notification' } }) +
      JSON.stringify({ type: 'system', subtype: 'compact_boundary', sessionId: u.threadId, uuid: 'z' }) +
      '\n' +
      JSON.stringify({ type: 'ai-title', aiTitle: 'T', sessionId: u.threadId }) +
      '\n';
    fs.appendFileSync(u.file, noise);
    await tick(env, gw);
    expect(turns(gw, 'claude', u.threadId)).toBe(0);
    fs.appendFileSync(
      u.file,
      msg(
        '<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args>opus</command-args>',
      ) +
        msg('<bash-input>ls</bash-input>') +
        msg([{ type: 'text', text: '[Request interrupted by user]' }]) +
        msg([{ type: 'text', text: '<task-notification>pasted by a person</task-notification>' }]),
    );
    await tick(env, gw);
    expect(turns(gw, 'claude', u.threadId)).toBe(4);
  });

  it('codex: only event_msg user_message; legacy non-plain kinds and sub-agent rollouts skipped', async () => {
    const u = codexSession(env.roots.codex);
    const gw = env.open();
    gw.catalog.adopt({ provider: 'codex', threadId: u.threadId });
    const line = (type: string, payload: unknown) =>
      JSON.stringify({ timestamp: new Date(T0 - 500).toISOString(), type, payload }) + '\n';
    fs.appendFileSync(
      u.file,
      line('response_item', {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: '<environment_context/>' }],
      }) +
        line('event_msg', {
          type: 'user_message',
          message: '<user_instructions>x</user_instructions>',
          kind: 'user_instructions',
        }) +
        line('event_msg', { type: 'user_message', message: 'ctx', kind: 'environment_context' }) +
        line('compacted', { message: 'sum', replacement_history: [] }) +
        line('event_msg', { type: 'agent_message', message: 'ok' }),
    );
    await tick(env, gw);
    expect(turns(gw, 'codex', u.threadId)).toBe(0);
    fs.appendFileSync(
      u.file,
      line('event_msg', { type: 'user_message', message: 'plain legacy', kind: 'plain' }),
    );
    await tick(env, gw);
    expect(turns(gw, 'codex', u.threadId)).toBe(1);
  });

  it('codex: a sub-agent rollout is not listed as a session', () => {
    const u = codexSession(env.roots.codex);
    const text = fs.readFileSync(u.file, 'utf8').replace('"source":"cli"', '"source":{"subagent":"review"}');
    const other = u.file.replace(
      /019cb3f2-8a1b-7d30-[0-9a-f-]+\.jsonl$/,
      '019cb3f2-8a1b-7d30-aaaa-bbbbbbbbbbbb.jsonl',
    );
    fs.writeFileSync(other, text.replaceAll(u.threadId, '019cb3f2-8a1b-7d30-aaaa-bbbbbbbbbbbb'));
    const gw = env.open();
    const ids = (gw.catalog.list() as { provider: string; threadId: string }[])
      .filter((r) => r.provider === 'codex')
      .map((r) => r.threadId);
    expect(ids).toEqual([u.threadId]);
  });

  it('codex: a rollout compressed to .jsonl.zst or archived is not missing', async () => {
    const u = codexSession(env.roots.codex);
    const u2 = codexSession(env.roots.codex);
    const gw = env.open();
    gw.catalog.adopt({ provider: 'codex', threadId: u.threadId });
    gw.catalog.adopt({ provider: 'codex', threadId: u2.threadId });
    fs.renameSync(u.file, u.file + '.zst'); // content need not be valid zstd for the existence test
    const archived = path.join(path.dirname(env.roots.codex), 'archived_sessions');
    fs.mkdirSync(archived, { recursive: true });
    fs.renameSync(u2.file, path.join(archived, path.basename(u2.file)));
    await tick(env, gw, 4);
    expect(ofKind(gw, adoptedKey('codex', u.threadId), 'upstream_missing'), '.zst').toHaveLength(0);
    expect(ofKind(gw, adoptedKey('codex', u2.threadId), 'upstream_missing'), 'archived').toHaveLength(0);
  });

  it('pi: user and bashExecution count; toolResult, custom_message, compaction, session_info do not', async () => {
    const u = piSession(env.roots.pi);
    const gw = env.open();
    gw.catalog.adopt({ provider: 'pi', threadId: u.threadId });
    const e = (o: Record<string, unknown>) =>
      JSON.stringify({
        id: crypto.randomUUID().slice(0, 8),
        parentId: null,
        timestamp: new Date(T0 - 100).toISOString(),
        ...o,
      }) + '\n';
    fs.appendFileSync(
      u.file,
      e({
        type: 'message',
        message: {
          role: 'toolResult',
          toolCallId: 't',
          toolName: 'read',
          content: [],
          isError: false,
          timestamp: T0,
        },
      }) +
        e({ type: 'custom_message', customType: 'git-status', content: 'x', display: false }) +
        e({ type: 'compaction', summary: 's', firstKeptEntryId: 'x', tokensBefore: 1 }) +
        e({ type: 'message', message: { role: 'compactionSummary', summary: 's', timestamp: T0 } }) +
        e({ type: 'session_info', name: 'n' }),
    );
    await tick(env, gw);
    expect(turns(gw, 'pi', u.threadId)).toBe(0);
    fs.appendFileSync(
      u.file,
      e({
        type: 'message',
        message: {
          role: 'bashExecution',
          command: 'ls',
          output: '',
          exitCode: 0,
          cancelled: false,
          truncated: false,
          timestamp: T0,
        },
      }) + e({ type: 'message', message: { role: 'user', content: 'string content', timestamp: T0 } }),
    );
    await tick(env, gw);
    expect(turns(gw, 'pi', u.threadId)).toBe(2);
  });

  it('opencode: synthetic-only and compaction messages do not count; a prompt with an extra synthetic part does', async () => {
    const oc = new OpenCodeDb(env.roots.opencode, env.clock);
    try {
      const u = oc.session() as ReturnType<OpenCodeDb['session']> & {
        synthetic(t: string): void;
        promptWithSynthetic(t: string): void;
      };
      const gw = env.open();
      gw.catalog.adopt({ provider: 'opencode', threadId: u.threadId });
      u.synthetic(
        'Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed.',
      );
      u.agent('ok');
      await tick(env, gw);
      expect(turns(gw, 'opencode', u.threadId)).toBe(0);
      u.promptWithSynthetic('now switch to plan mode');
      await tick(env, gw);
      expect(turns(gw, 'opencode', u.threadId)).toBe(1);
    } finally {
      oc.close();
    }
  });
});
