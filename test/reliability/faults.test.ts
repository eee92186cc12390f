// Reliability, part 2: faults. The state database stops taking writes mid-run — a failing write
// inside the append transaction (temp triggers on the state tables), another connection holding
// the write lock (SQLITE_BUSY after busy_timeout), a full database (max_page_count) and a
// read-only handle (query_only) — and model providers misbehave: a scripted child that hangs past
// its timeoutSeconds, an OpenAI-compatible server that answers 500, streams garbage, goes silent
// or drops the connection. Recording fails softly and never half-writes; runs end with the right
// outcome; everything works again when the fault clears.
//
// CI and SIGHTLINE_LONG=1 run the same cases; LONG repeats the database faults 20 times (CI: 3).
import Database from 'better-sqlite3';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../electron/gateway';
import { openTestGateway, waitFor, type TestGateway } from '../helpers/gateway';
import {
  OA_DONE,
  oaDelta,
  oaUsage,
  sendJson,
  sendSse,
  startSse,
  startWireServer,
  type WireServer,
} from '../providers/wire-server';
import { contextKeyOf, MAIN, noticeText } from '../helpers/spec';

const LONG = process.env.SIGHTLINE_LONG === '1';
const ROUNDS = LONG ? 20 : 3;
const CHILD = 'agent:main:subagent:c';
const OBSERVER = 'agent:main:observer';

const tally = { faults: 0, failedAppends: 0, failedRuns: 0 };
let t: TestGateway | undefined;
afterEach(async () => {
  if (t) {
    await t.gw.runtime.idle();
    t.cleanup();
  }
  t = undefined;
});
afterAll(() => {
  console.log(
    `reliability: faults injected=${tally.faults} failedAppends=${tally.failedAppends} failedRuns=${tally.failedRuns} halfWritten=0`,
  );
});

/** Everything an append may touch, for "nothing half-written". */
function snapshot(gw: Gateway) {
  return {
    events: gw.db.prepare('SELECT * FROM session_state_events ORDER BY sequence').all(),
    heads: gw.db.prepare('SELECT * FROM session_state_heads ORDER BY session_key').all(),
    cursors: gw.db.prepare('SELECT * FROM session_watch_cursors ORDER BY watcher_key, target_key').all(),
    sequence: gw.db.prepare(`SELECT seq FROM sqlite_sequence WHERE name = 'session_state_events'`).get(),
  };
}

function headsMatchEvents(gw: Gateway): void {
  expect(
    gw.db
      .prepare(
        `SELECT h.session_key, h.last_sequence FROM session_state_heads h
         WHERE h.last_sequence != (SELECT max(sequence) FROM session_state_events e WHERE e.session_key = h.session_key)`,
      )
      .all(),
  ).toEqual([]);
  expect(
    gw.db
      .prepare(
        `SELECT DISTINCT session_key FROM session_state_events e
         WHERE NOT EXISTS (SELECT 1 FROM session_state_heads h WHERE h.session_key = e.session_key)`,
      )
      .all(),
  ).toEqual([]);
}

/** main spawned CHILD (seeded cursor); OBSERVER watches CHILD explicitly. */
function setUp(): Gateway {
  t = openTestGateway();
  const gw = t.gw;
  gw.agents.save({ id: 'main', providerSettings: { stepMs: '1', steps: '1' } });
  gw.sessions.create({ key: CHILD, parentKey: MAIN });
  gw.sessions.create({ key: OBSERVER });
  gw.state.record({
    sessionKey: CHILD,
    kind: 'child_spawned',
    actorType: 'agent',
    actorId: MAIN,
    summary: 'child session spawned',
    watchers: [MAIN],
  });
  expect(gw.state.registerWatch(OBSERVER, CHILD)).toBe(true);
  return gw;
}

const change = (gw: Gateway) =>
  gw.state.record({
    sessionKey: CHILD,
    kind: 'goal_changed',
    actorType: 'human',
    summary: 'goal objective changed',
  });

const warnings = () => t!.logger.lines.filter((l) => l.level === 'warn' && l.msg === 'state: append failed');

/** One failing append: undefined, one warn line with the cause, nothing written, no notice. */
function expectSoftFailure(gw: Gateway, cause: string): void {
  const before = snapshot(gw);
  const queued = gw.notices.peek(OBSERVER);
  const warned = warnings().length;
  expect(change(gw)).toBeUndefined();
  tally.failedAppends++;
  expect(warnings().slice(warned)).toEqual([
    {
      level: 'warn',
      msg: 'state: append failed',
      fields: { sessionKey: CHILD, kind: 'goal_changed', error: cause },
    },
  ]);
  expect(snapshot(gw)).toEqual(before);
  expect(gw.notices.peek(OBSERVER)).toEqual(queued);
  headsMatchEvents(gw);
}

/** After the fault clears: the next append gets the next sequence and notifies as usual. */
function expectRecovered(gw: Gateway): void {
  const top = gw.state.version(CHILD);
  const lastSeen = gw.state.cursor(OBSERVER, CHILD)!.lastSeen;
  const e = change(gw);
  expect(e?.sequence).toBe(top + 1);
  expect(gw.state.version(CHILD)).toBe(top + 1);
  expect(gw.state.cursor(OBSERVER, CHILD)?.material).toBe(top + 1);
  expect(gw.notices.peek(OBSERVER)).toContainEqual({
    text: noticeText(CHILD, lastSeen),
    contextKey: contextKeyOf(CHILD),
  });
  headsMatchEvents(gw);
}

describe('a write inside the append transaction fails (state tables only)', () => {
  const points = [
    ['the event insert', 'INSERT ON session_state_events'],
    ['the head insert', 'INSERT ON session_state_heads'],
    ['the head update', 'UPDATE ON session_state_heads'],
    ['the cursor update', 'UPDATE ON session_watch_cursors'],
  ] as const;
  for (const [name, on] of points) {
    it(`rolls back the whole append when ${name} fails, and recovers`, () => {
      const gw = setUp();
      // A head insert only happens for a session's first event: fail on a fresh session then.
      const key = on === 'INSERT ON session_state_heads' ? 'agent:main:fresh' : CHILD;
      for (let round = 0; round < ROUNDS; round++) {
        gw.db.exec(`CREATE TEMP TRIGGER fault BEFORE ${on.replace('ON ', 'ON main.')}
                    BEGIN SELECT RAISE(ABORT, 'injected: disk I/O error'); END`);
        tally.faults++;
        if (key === CHILD) expectSoftFailure(gw, 'injected: disk I/O error');
        else {
          const before = snapshot(gw);
          expect(
            gw.state.record({ sessionKey: key, kind: 'compacted', actorType: 'system', summary: 'x' }),
          ).toBe(undefined);
          tally.failedAppends++;
          expect(snapshot(gw)).toEqual(before);
          expect(gw.state.version(key)).toBe(0);
        }
        gw.db.exec('DROP TRIGGER temp.fault');
        expectRecovered(gw);
        // Acknowledge, so the next round starts with no pending notice.
        gw.notices.drain(OBSERVER);
      }
    });
  }

  it('human.send and the turn it starts still complete while recording fails', async () => {
    const gw = setUp();
    gw.db.exec(`CREATE TEMP TRIGGER fault BEFORE INSERT ON main.session_state_events
                BEGIN SELECT RAISE(ABORT, 'injected: disk I/O error'); END`);
    tally.faults++;
    const before = snapshot(gw);
    await gw.human.send(CHILD, 'please also update the changelog');
    await gw.runtime.idle();
    tally.failedAppends++;
    expect(snapshot(gw)).toEqual(before); // no human_direct_message, no cursor moved
    expect(warnings().map((w) => w.fields)).toEqual([
      { sessionKey: CHILD, kind: 'human_direct_message', error: 'injected: disk I/O error' },
    ]);
    expect(gw.runtime.runs(CHILD).map((r) => r.status)).toEqual(['idle']);
    expect(gw.transcripts.all(CHILD).map((m) => [m.role, m.text])).toEqual([
      ['user', 'please also update the changelog'],
      ['assistant', 'Finished: please also update the changelog. All 1 steps done.'],
    ]);
    // A tool whose side effect records (goal_set → goal_changed) still succeeds.
    const goal = await gw.tools.call(CHILD, 'goal_set', { objective: 'ship it' });
    expect(goal.ok).toBe(true);
    expect(gw.goals.get(CHILD)).toMatchObject({ objective: 'ship it', status: 'active' });
    expect(snapshot(gw)).toEqual(before);
    gw.db.exec('DROP TRIGGER temp.fault');
    const version = gw.state.version(CHILD);
    await gw.human.send(CHILD, 'thanks');
    await gw.runtime.idle();
    expect(gw.state.changesSince(CHILD, version).events.map((e) => [e.sequence, e.summary])).toEqual([
      [version + 1, 'human message via desktop'],
    ]);
  });
});

describe('the whole database stops taking writes', () => {
  const faults: {
    name: string;
    cause: string;
    inject(gw: Gateway, dataDir: string): () => void;
  }[] = [
    {
      name: 'another connection holds the write lock (SQLITE_BUSY)',
      cause: 'database is locked',
      inject(gw, dataDir) {
        const other = new Database(path.join(dataDir, 'sightline.db'));
        other.exec('BEGIN EXCLUSIVE');
        gw.db.pragma('busy_timeout = 50');
        return () => {
          other.exec('COMMIT');
          other.close();
          gw.db.pragma('busy_timeout = 5000');
        };
      },
    },
    {
      name: 'the handle turns read-only (query_only)',
      cause: 'attempt to write a readonly database',
      inject(gw) {
        gw.db.pragma('query_only = ON');
        return () => gw.db.pragma('query_only = OFF');
      },
    },
  ];
  for (const f of faults) {
    it(`${f.name}: appends fail softly, reads go on, and recording resumes`, async () => {
      const gw = setUp();
      for (let round = 0; round < ROUNDS; round++) {
        const clear = f.inject(gw, t!.dataDir);
        tally.faults++;
        expectSoftFailure(gw, f.cause);
        // Readers are unaffected: reconciliation still answers.
        const status = await gw.tools.call(OBSERVER, 'session_status', {
          sessionKey: CHILD,
          changesSince: 0,
        });
        expect(status.ok).toBe(true);
        expect((status as { details: { stateVersion: number } }).details.stateVersion).toBe(
          gw.state.version(CHILD),
        );
        // The person's message itself cannot be stored: human.send reports that, writes nothing.
        const transcript = gw.transcripts.all(CHILD).length;
        await expect(gw.human.send(CHILD, 'are you there?')).rejects.toThrow(f.cause);
        expect(gw.transcripts.all(CHILD)).toHaveLength(transcript);
        clear();
        expectRecovered(gw);
        gw.notices.drain(OBSERVER);
      }
    });
  }

  it('the database is full (max_page_count): the failing append leaves nothing, space returns', () => {
    const gw = setUp();
    for (let round = 0; round < ROUNDS; round++) {
      const pages = gw.db.pragma('page_count', { simple: true }) as number;
      gw.db.pragma(`max_page_count = ${pages + 2}`);
      tally.faults++;
      // Appends fit into the last free pages for a while, then the file cannot grow.
      let fitted = 0;
      for (;;) {
        const before = snapshot(gw);
        const e = gw.state.record({
          sessionKey: CHILD,
          kind: 'goal_changed',
          actorType: 'human',
          summary: 'x'.repeat(200),
          payload: { pad: 'p'.repeat(1500) },
        });
        if (e) {
          fitted++;
          expect(fitted).toBeLessThan(500);
          continue;
        }
        tally.failedAppends++;
        expect(warnings().at(-1)?.fields?.error).toBe('database or disk is full');
        expect(snapshot(gw)).toEqual(before);
        break;
      }
      headsMatchEvents(gw);
      gw.db.pragma('max_page_count = 1073741823');
      expectRecovered(gw);
      gw.notices.drain(OBSERVER);
    }
  });
});

describe('model providers that misbehave', () => {
  let server: WireServer;
  beforeAll(async () => {
    server = await startWireServer();
  });
  afterAll(() => server.close());

  it('a hanging child is cut off at its timeoutSeconds bound (run_failed timeout)', async () => {
    const gw = setUp();
    tally.faults++;
    const started = Date.now();
    const r = await gw.tools.call(MAIN, 'sessions_spawn', {
      task: '[hang] wait for a lock',
      timeoutSeconds: 1,
    });
    expect(r.ok).toBe(true);
    const child = (r as { details: { childSessionKey: string } }).details.childSessionKey;
    await waitFor(() => gw.runtime.status(child)?.status === 'failed', 5_000, 'the timeout');
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(990);
    expect(elapsed).toBeLessThan(4_000);
    tally.failedRuns++;
    expect(gw.runtime.status(child)).toMatchObject({
      status: 'failed',
      outcome: 'timeout',
      error: 'run exceeded 1 s',
    });
    const events = gw.state.changesSince(child, 0).events;
    expect(events.map((e) => [e.kind, e.summary, e.payload])).toEqual([
      ['child_spawned', 'child session spawned', undefined],
      ['run_failed', 'child run timed out', { outcome: 'timeout' }],
    ]);
    // The parent hears about it through the completion announcement.
    await gw.runtime.idle();
    expect(
      gw.transcripts
        .all(MAIN)
        .some((m) => m.role === 'assistant' && m.text.includes(`Worker ${child} timed out.`)),
    ).toBe(true);
  });

  const agent = 'net';
  const key = `agent:${agent}:main`;
  const misbehaviours: {
    name: string;
    respond: Parameters<WireServer['handle']>[0];
    settings?: Record<string, string>;
  }[] = [
    {
      name: 'answers 500',
      respond: (_req, res) =>
        sendJson(res, 500, { error: { message: 'upstream exploded', type: 'server_error' } }),
    },
    {
      name: 'streams garbage',
      respond: (_req, res) =>
        sendSse(res, ['data: {"choices": [{"delta": {"content": "hal', 'data: \u0000\u0001 not json']),
    },
    {
      name: 'goes silent after the headers',
      respond: (_req, res) => startSse(res),
      settings: { timeoutMs: '300' },
    },
    {
      name: 'drops the connection mid-stream',
      respond: (_req, res) => {
        startSse(res);
        res.write(`${oaDelta({ role: 'assistant', content: 'Half an ans' })}\n\n`);
        setTimeout(() => res.socket?.destroy(), 20);
      },
    },
  ];
  for (const m of misbehaviours) {
    it(`an OpenAI-compatible server that ${m.name} ends the run with error; the transcript goes on`, async () => {
      t = openTestGateway();
      const gw = t.gw;
      gw.agents.save({
        id: agent,
        provider: 'openai',
        providerSettings: { baseUrl: `${server.origin}/v1`, model: 'x', ...m.settings },
        heartbeatSeconds: 0,
      });
      server.handle(m.respond);
      tally.faults++;
      const started = Date.now();
      await gw.human.send(key, 'Summarise the incident.');
      await gw.runtime.idle();
      expect(Date.now() - started).toBeLessThan(5_000);
      const failed = gw.runtime.runs(key);
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatchObject({ status: 'failed', outcome: 'error' });
      expect(failed[0]!.error).toMatch(/\S/);
      tally.failedRuns++;
      expect(t.logger.lines.filter((l) => l.msg === 'runtime: run failed')).toHaveLength(1);

      server.handle((_req, res) =>
        sendSse(res, [
          oaDelta({ role: 'assistant', content: 'All ' }),
          oaDelta({ content: 'good.' }, 'stop'),
          oaUsage(12, 3),
          OA_DONE,
        ]),
      );
      await gw.human.send(key, 'Try again.');
      await gw.runtime.idle();
      expect(
        gw.runtime
          .runs(key)
          .map((r) => r.status)
          .sort(),
      ).toEqual(['failed', 'idle']);
      expect(gw.transcripts.all(key).map((x) => [x.role, x.text])).toEqual([
        ['user', 'Summarise the incident.'],
        ['user', 'Try again.'],
        ['assistant', 'All good.'],
      ]);
    });
  }
});
