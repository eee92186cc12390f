// Beyond the reference: several gateways on one state database, each session run by one of them
// (issue 13.5). Gateways in one process here; test/reliability/ownership.test.ts runs processes.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, NotOwnerError, type Gateway } from '../../electron/gateway';
import { migrateTo } from '../../electron/gateway/db/migrate';
import { MIGRATIONS } from '../../electron/gateway/db/migrations';
import { openDatabase } from '../../electron/gateway/db/open';
import { openSqlite } from '../../electron/gateway/db/sqlite';
import { lockPath } from '../../electron/gateway/ownership/lock';
import { collectingLogger, tempDir, spawnEdge } from '../helpers/gateway';
import { httpClient } from '../mcp/helpers';
import { contextKeyOf, noticeText } from '../helpers/spec';

const open: Gateway[] = [];
let dir = '';
afterEach(() => {
  for (const g of open.splice(0)) g.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function gateway(): Gateway {
  const g = createGateway({ dataDir: dir, autoStart: false, logger: collectingLogger() });
  open.push(g);
  return g;
}

const BOSS = 'agent:main:boss';
const CHILD = 'agent:main:subagent:w';
const human = (g: Gateway, key = CHILD) =>
  g.state.record({
    sessionKey: key,
    kind: 'human_direct_message',
    actorType: 'human',
    summary: 'human message via desktop',
  })!;
const notice = (changesSince: number) => ({
  text: noticeText(CHILD, changesSince),
  contextKey: contextKeyOf(CHILD),
});
const owners = (g: Gateway) =>
  g.db
    .prepare(
      'SELECT s.session_key AS key, o.gateway_id AS gw FROM session_owners s JOIN owners o ON o.id = s.owner_id',
    )
    .all() as { key: string; gw: string }[];

/** A is up first (it creates agent:main:main); B creates BOSS and its child, so B runs both. */
function twoGateways() {
  dir = tempDir();
  const a = gateway();
  const b = gateway();
  b.sessions.create({ key: BOSS });
  const seed = spawnEdge(b, CHILD, BOSS);
  return { a, b, seed: seed.sequence };
}

describe('several gateways on one database: one owner per session', () => {
  it('queues a notice only in the gateway that runs the watcher, once', () => {
    const { a, b, seed } = twoGateways();
    expect(a.ownership.owns(BOSS)).toBe(false);
    expect(b.ownership.owns(BOSS)).toBe(true);
    expect(a.ownership.owns('agent:main:main')).toBe(true);
    expect(b.ownership.holds('agent:main:main')).toBe(false);
    expect(b.state.pollShared()).toBe(0); // child_spawned is not notify-eligible

    human(a);
    human(a);
    expect(a.notices.peek(BOSS)).toEqual([]); // A committed it, but B runs the watcher
    expect(b.notices.peek(BOSS)).toEqual([]);
    expect(a.state.pollShared()).toBe(0);
    expect(b.state.pollShared()).toBe(1);
    expect(b.notices.peek(BOSS)).toEqual([notice(seed)]);
    expect(b.state.pollShared()).toBe(0); // nothing new committed elsewhere

    // Draining in B acknowledges (and reopens once: M had passed the frozen N); A holds nothing.
    expect(b.notices.drain(BOSS)).toEqual([notice(seed)]);
    expect(a.state.cursor(BOSS, CHILD)).toEqual({
      lastSeen: seed + 1,
      notified: seed + 2,
      material: seed + 2,
    });
    expect(b.notices.peek(BOSS)).toEqual([notice(seed + 1)]);
    expect(a.state.pollShared()).toBe(0);
    expect(a.notices.peek(BOSS)).toEqual([]);
    expect(a.notices.drain(BOSS)).toEqual([]);
    expect(a.notices.enqueue(BOSS, { text: 'Build 3 finished.' })).toBe(false);
  });

  it('an event committed elsewhere while a poll scans reaches the next poll', () => {
    const { a, b, seed } = twoGateways();
    const CHILD2 = 'agent:main:subagent:v';
    const seed2 = spawnEdge(b, CHILD2, BOSS).sequence;
    human(a);
    // A commits for the second child while B's poll is between its scan and its high-water mark.
    const holds = b.ownership.holds.bind(b.ownership);
    let injected = false;
    b.ownership.holds = (key) => {
      if (!injected) {
        injected = true;
        human(a, CHILD2);
      }
      return holds(key);
    };
    expect(b.state.pollShared()).toBe(1);
    expect(injected).toBe(true);
    expect(b.state.pollShared()).toBe(1);
    expect(b.notices.peek(BOSS)).toEqual([
      notice(seed),
      { text: noticeText(CHILD2, seed2), contextKey: contextKeyOf(CHILD2) },
    ]);
    expect(b.state.pollShared()).toBe(0);
  });

  it('refuses what a gateway would do for a session another one runs', async () => {
    const { a, b, seed } = twoGateways();
    human(a);
    b.state.pollShared();
    expect(() => a.state.acknowledge(BOSS, [CHILD])).toThrow(NotOwnerError);
    expect(() => a.ownership.fenced(BOSS, () => 1)).toThrow(NotOwnerError);
    await expect(a.human.send(CHILD, 'hello')).rejects.toThrow(
      `Session ${CHILD} is run by another Sightline gateway on this database`,
    );
    await a.runtime.heartbeat(BOSS);
    expect(a.db.prepare('SELECT count(*) AS n FROM runs').get()).toEqual({ n: 0 });
    expect(a.transcripts.all(CHILD).map((m) => m.text)).toEqual([]);
    expect(a.state.cursor(BOSS, CHILD)).toEqual({ lastSeen: seed, notified: seed + 1, material: seed + 1 });
    // The tool surface says the same (a sessions_send from A's main session to B's child).
    const sent = await a.tools.call('agent:main:main', 'sessions_send', { sessionKey: CHILD, message: 'hi' });
    expect(sent).toEqual({
      ok: false,
      error: `Session ${CHILD} is run by another Sightline gateway on this database`,
    });
    // Reading stays open to every gateway: the log, changesSince, the views.
    expect(a.state.changesSince(CHILD, seed).events.map((e) => e.sequence)).toEqual([seed + 1]);
    expect(a.sessions.get(BOSS)).toBeDefined();
    expect(a.state.watchers(CHILD).watchedBy.map((c) => c.watcher)).toEqual([BOSS]);
  });

  it('serves MCP calls for a session only in the gateway that runs it', async () => {
    const { a, b } = twoGateways();
    const forBoss = await b.mcp.issue(BOSS); // stored in the shared database: both can verify it
    const aUrl = (await a.mcp.issue('agent:main:main')).url;
    expect(aUrl).not.toBe(forBoss.url);
    await expect(httpClient(aUrl, forBoss.secret)).rejects.toThrow(/401|Unauthorized/);
    const client = await httpClient(forBoss.url, forBoss.secret);
    try {
      expect((await client.call('sessions_list', {})).isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it('takes over the sessions of a gateway that is gone, with their pending notices, at once', () => {
    const { a, b, seed } = twoGateways();
    human(a);
    b.state.pollShared();
    b.close();
    // Gone now (its lock is free): A's next poll claims B's sessions and re-queues what is pending.
    expect(a.notices.peek(BOSS)).toEqual([]);
    a.state.pollShared();
    expect(a.ownership.holds(BOSS)).toBe(true);
    expect(a.ownership.holds(CHILD)).toBe(true);
    expect(a.notices.peek(BOSS)).toEqual([notice(seed)]);
    expect(owners(a).every((o) => o.gw === a.ownership.gatewayId)).toBe(true);
    expect(fs.readdirSync(path.join(dir, 'gateways'))).toEqual([`${a.ownership.gatewayId}.lock`]);
    // A later change reaches A once (it runs the watcher now).
    a.notices.drain(BOSS);
    human(a);
    expect(a.notices.peek(BOSS)).toEqual([notice(seed + 1)]);
  });

  it('fences a gateway that lost its lock: its writes are refused, its stale notices dropped', () => {
    const { a, b, seed } = twoGateways();
    human(a);
    b.state.pollShared();
    const epoch = b.ownership.epoch(BOSS)!;
    expect(epoch).toBeGreaterThan(0);
    // Someone removed B's lock file: B lives on, but for everyone else it is gone.
    fs.rmSync(lockPath(dir, b.ownership.gatewayId));
    a.state.pollShared();
    expect(a.ownership.epoch(BOSS)).toBeGreaterThan(epoch);
    expect(a.notices.peek(BOSS)).toEqual([notice(seed)]);
    // B still believes it runs BOSS; every write it tries for it is refused and changes nothing.
    expect(b.ownership.owns(BOSS)).toBe(true);
    expect(() => b.state.acknowledge(BOSS, [CHILD])).toThrow(NotOwnerError);
    expect(() =>
      b.ownership.fenced(
        BOSS,
        () => b.goals.set(BOSS, { objective: 'x' }, { type: 'agent', id: BOSS }),
        epoch,
      ),
    ).toThrow(NotOwnerError);
    expect(b.goals.get(BOSS)).toBeUndefined();
    expect(b.state.cursor(BOSS, CHILD)).toEqual({ lastSeen: seed, notified: seed + 1, material: seed + 1 });
    // Its next poll learns it: the stale copy goes, nothing is shown for BOSS any more.
    b.state.pollShared();
    expect(b.ownership.owns(BOSS)).toBe(false);
    expect(b.notices.peek(BOSS)).toEqual([]);
    expect(b.notices.drain(BOSS)).toEqual([]);
  });

  it('a restart keeps one claim and takes it over with a new epoch', () => {
    dir = tempDir();
    const first = gateway();
    first.sessions.create({ key: BOSS });
    const before = first.ownership.epoch(BOSS)!;
    first.close();
    open.length = 0;
    const second = gateway();
    expect(second.ownership.holds(BOSS)).toBe(true);
    expect(second.ownership.epoch(BOSS)).toBeGreaterThan(before);
    expect(second.db.prepare('SELECT gateway_id FROM owners').pluck().all()).toEqual([
      second.ownership.gatewayId,
    ]);
  });

  it('sessions of a database older than ownership join the first gateway that starts', () => {
    dir = tempDir();
    const db = openSqlite(path.join(dir, 'sightline.db'));
    migrateTo(db, MIGRATIONS, 14);
    const insert = db.prepare(
      `INSERT INTO sessions (key, agent_id, created_at, updated_at) VALUES (?, 'main', 1, 1)`,
    );
    for (const key of [BOSS, CHILD, 'agent:main:main']) insert.run(key);
    db.close();
    openDatabase(dir).close(); // migrated, no gateway yet: nobody holds them
    const g = gateway();
    for (const key of [BOSS, CHILD, 'agent:main:main']) expect(g.ownership.holds(key)).toBe(true);
    expect(owners(g)).toHaveLength(3);
  });
});
