// Reliability, part 3: hostile input. Property tests (fast-check) over every IPC/WebSocket channel's
// argument schema through the real dispatch (browser mode's WebSocket server calls the same
// dispatch), the session-key parser, the notice context-key codec, every agent tool with arbitrary
// arguments; plus summaries and labels with control characters, 1 MB strings and SQL. The
// transcript classifiers under arbitrary chunkings are in hostile-transcripts.test.ts.
//
// CI: a few hundred runs per property. SIGHTLINE_LONG=1 multiplies the runs by 20.
import fc from 'fast-check';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiHandlers } from '../../electron/gateway/api/handlers';
import { CHANNEL_LIST, type Channel } from '../../shared/ipc/channels';
import { parseArgs } from '../../shared/ipc/schemas';
import { decodeNoticeContextKey, noticeContextKey, parseSessionKey } from '../../shared/session-keys';
import { openTestGateway, type TestGateway } from '../helpers/gateway';

const LONG = process.env.SIGHTLINE_LONG === '1';
const runs = (n: number) => (LONG ? n * 20 : n);
const tried = { ipc: 0, keys: 0, codec: 0, tools: 0, strings: 0 };
afterAll(() => {
  const total = Object.values(tried).reduce((a, b) => a + b, 0);
  console.log(
    `reliability: hostile inputs=${total} ipc=${tried.ipc} keys=${tried.keys} codec=${tried.codec} tools=${tried.tools} strings=${tried.strings} failures=0`,
  );
});

const APP = { name: 'Sightline', version: '0.0.0-test', mode: 'web' as const, dataDir: '/tmp/x' };
const SQL = `'); DROP TABLE sessions;--`;
const KEYS = [
  'agent:main:main',
  'agent:main:subagent:w',
  'AGENT:Main:subagent:w',
  'agent:main:nope',
  'global',
  '',
  'agent::main',
  `agent:main:${SQL}`,
  'agent:main:\u0000\ud800',
];

/** Lone surrogates → U+FFFD, as TextEncoder (and String.prototype.toWellFormed) do. */
function wellFormed(s: string): string {
  return s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

const nasty = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.string({
    unit: fc.constantFrom('\ud800', '\udc00', '\u0000', '\n', '\u2028', ':', 'a', 'A', 'é', '😀', "'", '"'),
    maxLength: 40,
  }),
  fc.constantFrom(...KEYS, SQL, 'x'.repeat(600)),
);
const anyJson = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.anything({ maxDepth: 2 }), nasty);

/** Objects shaped like the channel's arguments (known keys, hostile values) and anything at all. */
function argsFor(channel: Channel): fc.Arbitrary<unknown> {
  const known = [
    'sessionKey',
    'text',
    'beforeId',
    'limit',
    'objective',
    'status',
    'agentId',
    'beforeSequence',
    'kinds',
    'actorTypes',
    'id',
    'provider',
    'threadId',
    'name',
    'model',
    'baseUrl',
    'apiKey',
    'clearApiKey',
    'systemPrompt',
    'heartbeatSeconds',
    'query',
  ];
  const value = fc.oneof(
    anyJson,
    fc.integer(),
    fc.double(),
    fc.constantFrom(-1, 0, 1, 2 ** 53, 1e308, NaN, Infinity, 'active', 'claude', 'openai', ['human'], ['x']),
  );
  const shaped = fc.dictionary(fc.oneof(fc.constantFrom(...known), fc.string({ maxLength: 8 })), value, {
    maxKeys: 5,
  });
  const args = fc.oneof(shaped, anyJson, fc.constant(undefined), fc.constant(null));
  // demo:start/reset with valid (empty) arguments would start the demo fleet: only their rejections here.
  return channel === 'demo:start' || channel === 'demo:reset'
    ? args.filter((a) => !parseArgs(channel, a).ok)
    : args;
}

let t: TestGateway | undefined;
afterEach(async () => {
  if (t) {
    await t.gw.runtime.idle();
    t.cleanup();
  }
  t = undefined;
});

/** A gateway whose turns fail at once (nothing listens on port 9), so accepted sends end quickly. */
function hostileGateway(): TestGateway {
  const tg = openTestGateway();
  tg.gw.agents.save({
    id: 'main',
    provider: 'openai',
    providerSettings: { baseUrl: 'http://127.0.0.1:9/v1', model: 'x' },
    heartbeatSeconds: 0,
  });
  tg.gw.sessions.create({ key: 'agent:main:subagent:w', parentKey: 'agent:main:main' });
  return tg;
}

function tablesIntact(tg: TestGateway): void {
  const db = tg.gw.db;
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  const tables = (
    db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]
  ).map((r) => r.name);
  for (const name of ['sessions', 'session_state_events', 'session_state_heads', 'session_watch_cursors'])
    expect(tables).toContain(name);
  expect(tg.gw.sessions.get('agent:main:main')?.key).toBe('agent:main:main');
}

describe('IPC / WebSocket arguments', () => {
  for (const channel of CHANNEL_LIST) {
    it(`${channel}: dispatch never throws; every rejection is one invalid_argument line`, async () => {
      t = hostileGateway();
      const { dispatch } = createApiHandlers(t.gw, { app: APP });
      await fc.assert(
        fc.asyncProperty(argsFor(channel), async (raw) => {
          tried.ipc++;
          const parsed = parseArgs(channel, raw);
          const env = await dispatch(channel, raw);
          if (!parsed.ok) {
            expect(env).toEqual({ ok: false, error: { code: 'invalid_argument', message: parsed.message } });
            expect(parsed.message).toMatch(/^[^\n]{3,300}$/);
            // The message names the field (or the whole argument) and what is wrong with it.
            expect(parsed.message).toMatch(/must|expected|unknown|needs|Unrecognized|Invalid|at most/i);
          } else if (!env.ok) {
            expect(env.error.code).not.toBe('invalid_argument');
            expect(env.error.message).toMatch(/\S/);
          }
        }),
        { numRuns: runs(150) },
      );
      const bad = await dispatch(channel, { sessionKey: 1, [SQL]: SQL });
      expect(bad.ok).toBe(false);
      const unknown = await dispatch(`${channel}\u0000`, {});
      expect(unknown).toEqual({
        ok: false,
        error: { code: 'unknown_channel', message: `Unknown channel: ${channel}\u0000` },
      });
      tablesIntact(t);
    });
  }
});

describe('session keys and the notice context-key codec', () => {
  it('parseSessionKey never throws, is idempotent, and only qualifies valid agent ids', () => {
    fc.assert(
      fc.property(fc.oneof(nasty, fc.string(), fc.string({ unit: 'grapheme' })), (raw) => {
        tried.keys++;
        const p = parseSessionKey(raw);
        if (p.kind === 'bare') {
          expect(p).toEqual({ key: raw, rest: raw, kind: 'bare' });
        } else {
          expect(p.agentId).toMatch(/^[a-z0-9][a-z0-9_-]{0,63}$/);
          expect(p.key).toBe(`agent:${p.agentId}:${p.rest}`);
          expect(p.key.toLowerCase()).toBe(raw.toLowerCase());
          expect(p.rest.length).toBeGreaterThan(0);
        }
        expect(parseSessionKey(p.key)).toEqual(p);
      }),
      { numRuns: runs(2000) },
    );
    expect(parseSessionKey('Agent:OPS:Main')).toEqual({
      key: 'agent:ops:Main',
      agentId: 'ops',
      rest: 'Main',
      kind: 'other',
    });
    expect(parseSessionKey(`agent:main:${SQL}`).kind).toBe('other');
    expect(parseSessionKey('agent:-x:main').kind).toBe('bare');
  });

  it('noticeContextKey / decodeNoticeContextKey round-trip any non-empty string (lone surrogates → U+FFFD)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', minLength: 1 }),
          fc.string({ unit: fc.constantFrom('\ud800', '\udfff', 'a', '😀', '\u0000'), minLength: 1 }),
        ),
        (s) => {
          tried.codec++;
          const ck = noticeContextKey(s);
          expect(ck).toMatch(/^session-state:(?:[0-9a-f]{2})+$/);
          expect(decodeNoticeContextKey(ck)).toBe(wellFormed(s));
          expect(noticeContextKey(wellFormed(s))).toBe(ck);
        },
      ),
      { numRuns: runs(2000) },
    );
    expect(decodeNoticeContextKey(noticeContextKey('a\ud800b'))).toBe('a\ufffdb');
    expect(noticeContextKey('\udc00')).toBe('session-state:efbfbd');
    // The empty key has no hex: it decodes to nothing (session keys are never empty).
    expect(noticeContextKey('')).toBe('session-state:');
    expect(decodeNoticeContextKey('session-state:')).toBeUndefined();
  });

  it('decodeNoticeContextKey never throws; whatever it decodes re-encodes to the same context key', () => {
    const hexish = fc.string({
      unit: fc.constantFrom(...'0123456789abcdefABCDEF g'.split('')),
      maxLength: 40,
    });
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          hexish.map((h) => `session-state:${h}`),
          fc.uint8Array({ maxLength: 24 }).map((b) => `session-state:${Buffer.from(b).toString('hex')}`),
        ),
        (ck) => {
          tried.codec++;
          const target = decodeNoticeContextKey(ck);
          if (target !== undefined) expect(noticeContextKey(target)).toBe(ck);
        },
      ),
      { numRuns: runs(3000) },
    );
    // Malformed UTF-8 (overlong, surrogate, truncated) is rejected, never replaced.
    for (const hex of ['c0af', 'eda080', 'e282', 'f4908080', 'ff', '0', 'zz'])
      expect(decodeNoticeContextKey(`session-state:${hex}`)).toBeUndefined();
    expect(decodeNoticeContextKey(undefined)).toBeUndefined();
  });
});

describe('agent tools with arbitrary arguments', () => {
  const TOOLS = [
    'session_status',
    'sessions_list',
    'sessions_history',
    'sessions_send',
    'sessions_spawn',
    'goal_set',
    'goal_clear',
    'session_notices',
  ];
  let tg: TestGateway;
  beforeEach(() => {
    tg = hostileGateway();
    t = tg;
  });

  it('every registered tool is covered', async () => {
    // An unknown tool name is a plain error result; the names above are the agent-facing set.
    const r = await tg.gw.tools.call('agent:main:main', 'no_such_tool', {});
    expect(r.ok).toBe(false);
    expect((r as { error: string }).error).toMatch(/\S/);
    for (const name of TOOLS) {
      const x = await tg.gw.tools.call('agent:main:main', name, { [SQL]: 1 });
      if (!x.ok) expect(x.error).not.toMatch(/^Unknown tool/i);
    }
  });

  it('tools.call never throws; ok:false always carries a non-empty error', async () => {
    const toolArgs = fc.oneof(
      anyJson,
      fc.dictionary(
        fc.constantFrom(
          'sessionKey',
          'changesSince',
          'message',
          'watch',
          'task',
          'label',
          'agentId',
          'timeoutSeconds',
          'runtime',
          'profile',
          'objective',
          'status',
          'limit',
          'includeTools',
        ),
        fc.oneof(
          anyJson,
          fc.integer(),
          fc.constantFrom(...KEYS, 0, -1, 1.5, 2 ** 60, true, 'acp', 'native', 'done'),
        ),
        { maxKeys: 5 },
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...TOOLS, 'nope', ''),
        fc.oneof(fc.constantFrom(...KEYS), nasty),
        toolArgs,
        async (tool, caller, args) => {
          tried.tools++;
          const r = await tg.gw.tools.call(caller, tool, args);
          expect(typeof r.ok).toBe('boolean');
          if (r.ok) {
            expect(typeof r.text).toBe('string');
            expect(r.details).toBeDefined();
          } else {
            expect(typeof r.error).toBe('string');
            expect(r.error.trim().length).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: runs(400) },
    );
    expect(
      await tg.gw.tools.call('agent:main:main', 'session_status', {
        sessionKey: 'agent:main:main',
        changesSince: -1,
      }),
    ).toEqual({
      ok: false,
      error: 'changesSince must be a non-negative integer',
    });
    expect(await tg.gw.tools.call('agent:main:main', 'session_status', { sessionKey: SQL })).toEqual({
      ok: false,
      error: `Unknown sessionKey: ${SQL}`,
    });
    await tg.gw.runtime.idle();
    tablesIntact(tg);
  });
});

describe('summaries and labels: control characters, 1 MB strings, SQL fragments', () => {
  const CONTROL = 'line one\nline two\r\n\u0000\u0007\u001b[31mred\u001b[0m\u2028tab\there\u0085';
  const BIG = `${'é'.repeat(300_000)}${'x'.repeat(400_000)}\n${SQL}`;
  const inputs = [
    CONTROL,
    BIG,
    SQL,
    `${SQL}\n${CONTROL}`,
    ' \n\t ',
    '😀'.repeat(150),
    `${'a'.repeat(199)}😀tail`,
  ];

  function oneLineOk(s: string): void {
    expect(s.length).toBeLessThanOrEqual(200);
    // eslint-disable-next-line no-control-regex
    expect(s).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
    expect(s).toBe(s.trim());
    expect(wellFormed(s)).toBe(s); // no surrogate pair cut in half
  }

  it('are stored and returned safely, and the tables stay intact', async () => {
    const tg = hostileGateway();
    t = tg;
    const gw = tg.gw;
    for (const [i, s] of inputs.entries()) {
      tried.strings++;
      const key = `agent:main:subagent:h${i}`;
      const info = gw.sessions.create({ key, parentKey: 'agent:main:main', label: s });
      if (info.label !== undefined) oneLineOk(info.label);
      expect(gw.sessions.get(key)?.label).toBe(info.label);
      const e = gw.state.record({ sessionKey: key, kind: 'compacted', actorType: 'system', summary: s });
      expect(e).toBeDefined();
      oneLineOk(e!.summary);
      const back = gw.state.changesSince(key, 0).events;
      expect(back.map((x) => x.summary)).toEqual([e!.summary]);
      const status = await gw.tools.call('agent:main:main', 'session_status', {
        sessionKey: key,
        changesSince: 0,
      });
      expect(status.ok).toBe(true);
      expect(JSON.stringify((status as { details: unknown }).details)).toContain(
        JSON.stringify(e!.summary).slice(1, -1),
      );
    }
    expect(gw.state.changesSince('agent:main:subagent:h0', 0).events[0]!.summary).toBe(
      'line one line two [31mred [0m tab here',
    );
    expect(gw.state.changesSince('agent:main:subagent:h2', 0).events[0]!.summary).toBe(SQL);
    expect(gw.sessions.get('agent:main:subagent:h6')?.label).toBe(`${'a'.repeat(199)}`);
    // A session key full of SQL is just a key.
    const sqlKey = `agent:main:${SQL}`;
    gw.sessions.create({ key: sqlKey, label: SQL });
    expect(
      gw.state.record({ sessionKey: sqlKey, kind: 'goal_changed', actorType: 'human', summary: SQL })
        ?.summary,
    ).toBe(SQL);
    expect(gw.sessions.get(sqlKey)?.label).toBe(SQL);
    // A 1 MB message goes through human.send's bound, not into the database.
    await expect(gw.human.send('agent:main:subagent:w', BIG)).rejects.toThrow('text must be at most');
    tablesIntact(tg);
    expect(gw.sessions.list().length).toBe(2 + inputs.length + 1);
  });
});
