// Every migration on a database with data (issue 27.5): the database is built at the version
// before by the runner itself (migrateTo), filled with rows as the app of that version wrote them,
// then upgraded one step. Every row of every table survives with its values, the counters stay,
// foreign_key_check finds nothing, and the step's own change is checked (CHECKS below: one entry
// per migration — a new migration adds its entry and, if it adds a table, its rows to fill()).
// Migration 009's removal of orphan rows is proven in upgrade.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway } from '../../electron/gateway';
import { migrate, migrateTo } from '../../electron/gateway/db/migrate';
import { MIGRATIONS } from '../../electron/gateway/db/migrations';
import { applyPragmas, DB_FILE } from '../../electron/gateway/db/open';
import { openSqlite, type Db } from '../../electron/gateway/db/sqlite';
import { collectingLogger } from '../helpers/logger';
import { tempDir } from '../helpers/temp';
import { MAIN } from '../helpers/spec';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function openAt(version: number): { db: Db; dir: string } {
  const dir = tempDir('sightline-migration-');
  dirs.push(dir);
  const db = openSqlite(path.join(dir, DB_FILE));
  applyPragmas(db);
  expect(migrateTo(db, MIGRATIONS, version)).toBe(version);
  return { db, dir };
}

const T = 1_764_000_000_000; // a December 2025 afternoon, in ms
const WORKER = 'agent:main:subagent:7f3a';
const ADOPTED = 'agent:main:adopted:claude:0b9c2e4a';
const run = (db: Db, sql: string, ...params: unknown[]) => db.prepare(sql).run(...params);
const all = (db: Db, sql: string, ...params: unknown[]) =>
  db.prepare(sql).all(...params) as Record<string, unknown>[];
const one = (db: Db, sql: string, ...params: unknown[]) =>
  db.prepare(sql).get(...params) as Record<string, unknown>;

/** What a person's database looks like at `version`: every table of that version has rows. */
function fill(db: Db, version: number): void {
  const session = (key: string, parent: string | null, label: string, at: number) =>
    run(
      db,
      `INSERT INTO sessions (key, agent_id, parent_key, label, created_at, updated_at) VALUES (?, 'main', ?, ?, ?, ?)`,
      key,
      parent,
      label,
      at,
      at + 5_000,
    );
  session(MAIN, null, 'Coordinator', T);
  session(WORKER, MAIN, 'Fix the flaky login test', T + 60_000);
  session(ADOPTED, null, 'Claude Code: refactor billing', T + 120_000);
  const event = (
    key: string,
    kind: string,
    actor: string,
    summary: string,
    at: number,
    payload: string | null = null,
  ) =>
    run(
      db,
      `INSERT INTO session_state_events (session_key, agent_id, kind, actor_type, actor_id, run_id, occurred_at, summary, payload, dedupe_key)
       VALUES (?, 'main', ?, ?, ?, NULL, ?, ?, ?, NULL)`,
      key,
      kind,
      actor,
      actor === 'human' ? 'local-user' : null,
      at,
      summary,
      payload,
    );
  event(
    MAIN,
    'child_spawned',
    'agent',
    `spawned ${WORKER}`,
    T + 60_000,
    JSON.stringify({ childKey: WORKER }),
  );
  event(WORKER, 'human_direct_message', 'human', 'human message via desktop', T + 90_000);
  event(WORKER, 'goal_changed', 'human', 'goal: Fix the flaky login test (active)', T + 95_000);
  event(ADOPTED, 'adopted', 'human', 'adopted from Claude Code', T + 120_000);
  run(
    db,
    `INSERT INTO session_state_heads VALUES (?, 'main', 1, 0), (?, 'main', 3, 0), (?, 'main', 4, 0)`,
    MAIN,
    WORKER,
    ADOPTED,
  );
  run(db, `INSERT INTO session_watch_cursors VALUES (?, ?, 1, 3, 3, ?)`, WORKER, MAIN, T + 95_000);
  if (version < 2) return;
  run(
    db,
    `INSERT INTO agents (id, name, provider, provider_settings, system_prompt, heartbeat_seconds, main_key, created_at, updated_at)
     VALUES ('main', 'Main', 'anthropic', ?, 'You coordinate the fleet.', 300, ?, ?, ?)`,
    JSON.stringify({
      model: 'claude-sonnet-4-5',
      baseUrl: 'https://api.anthropic.com',
      apiKey: 'sealed:v1:AAAA',
    }),
    MAIN,
    T,
    T,
  );
  const message = (
    key: string,
    role: string,
    actor: string,
    text: string,
    at: number,
    extra: Record<string, unknown> = {},
  ) =>
    run(
      db,
      `INSERT INTO session_messages (session_key, role, actor_type, actor_id, text, tool_calls, tool_call_id, tool_name, input_tokens, output_tokens, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      key,
      role,
      actor,
      actor === 'human' ? 'local-user' : null,
      text,
      extra.toolCalls ?? null,
      extra.toolCallId ?? null,
      extra.toolName ?? null,
      extra.input ?? null,
      extra.output ?? null,
      at,
    );
  message(WORKER, 'user', 'human', 'The login test fails one run in ten. Find out why.', T + 90_000);
  message(WORKER, 'assistant', 'agent', 'Looking at the test first.', T + 91_000, {
    toolCalls: JSON.stringify([{ id: 'call_1', name: 'session_status', arguments: { sessionKey: MAIN } }]),
    input: 1_204,
    output: 87,
  });
  message(WORKER, 'tool', 'agent', '{"version":1,"events":[]}', T + 92_000, {
    toolCallId: 'call_1',
    toolName: 'session_status',
  });
  message(MAIN, 'assistant', 'agent', 'The worker is on it.', T + 93_000, { input: 900, output: 12 });
  run(
    db,
    `INSERT INTO session_goals VALUES (?, 'Fix the flaky login test', 'active', ?)`,
    WORKER,
    T + 95_000,
  );
  run(
    db,
    `INSERT INTO runs (run_id, session_key, status, outcome, error, started_at, ended_at, input_tokens, output_tokens)
     VALUES ('run-1', ?, 'idle', NULL, NULL, ?, ?, 1204, 87), ('run-2', ?, 'failed', 'timeout', 'model did not answer in 120 s', ?, ?, 900, 0)`,
    WORKER,
    T + 90_500,
    T + 93_000,
    MAIN,
    T + 93_500,
    T + 213_500,
  );
  run(
    db,
    `INSERT INTO acp_profiles (id, name, command, args, env, cwd, updated_at) VALUES ('claude', 'Claude Code', 'npx', ?, ?, NULL, ?)`,
    JSON.stringify(['-y', '@zed-industries/claude-code-acp']),
    JSON.stringify({ ANTHROPIC_API_KEY: 'sealed:v1:BBBB' }),
    T,
  );
  if (version < 3) return;
  run(
    db,
    `INSERT INTO catalog_upstream_links (session_key, provider, thread_id, host_id, source_ref, source_hash, generation, marker_offset, marker_inode, scan_state, missing_streak, last_scanned_at, created_at, updated_at)
     VALUES (?, 'claude', '0b9c2e4a', 'host-1', ?, 'sha1:9e1f', 3, 48_211, '2049:1311', ?, 0, ?, ?, ?)`,
    ADOPTED,
    JSON.stringify({ kind: 'file', path: '/home/ann/.claude/projects/billing/0b9c2e4a.jsonl' }),
    JSON.stringify({ at: T + 300_000 }),
    T + 300_000,
    T + 120_000,
    T + 300_000,
  );
  run(
    db,
    `INSERT INTO catalog_own_texts (session_key, text, created_at) VALUES (?, 'Please also update the changelog.', ?)`,
    ADOPTED,
    T + 200_000,
  );
  if (version < 4) return;
  run(db, `INSERT INTO ui_inbox_dismissals VALUES ('failed:run-2', ?)`, T + 400_000);
  if (version < 6) return;
  run(db, `INSERT INTO ui_preferences VALUES ('theme', '"dark"', ?)`, T + 500_000);
  if (version < 8) return;
  run(
    db,
    `INSERT INTO consents VALUES ('acp-profile:claude:rev1', 'npx -y @zed-industries/claude-code-acp', ?)`,
    T + 600_000,
  );
  if (version < 10) return;
  run(
    db,
    `INSERT INTO mcp_credentials (id, session_key, kind, label, secret_hash, port, created_at, last_used_at, client)
     VALUES ('cred-1', ?, 'external', 'my editor', 'sha256:4f2a', 39_217, ?, ?, 'claude-code')`,
    WORKER,
    T + 700_000,
    T + 710_000,
  );
  run(db, `INSERT INTO mcp_endpoint VALUES (1, 39217, ?)`, T + 700_000);
  if (version < 11) return;
  run(db, `UPDATE sessions SET cwd = '/home/ann/src/webapp' WHERE key = ?`, WORKER);
  if (version < 12) return;
  run(
    db,
    `INSERT INTO acp_installs VALUES ('claude', 'claude-code-acp', '0.16.2', 'npx', '@zed-industries/claude-code-acp@0.16.2', NULL, NULL, NULL, ?)`,
    T + 800_000,
  );
  if (version < 13) return;
  run(
    db,
    `UPDATE session_messages SET diffs = ? WHERE tool_call_id = 'call_1'`,
    JSON.stringify([{ path: 'test/login.test.ts', oldText: 'a', newText: 'b' }]),
  );
  if (version < 14) return;
  run(
    db,
    `INSERT INTO catalog_nodes (id, name, ssh, command_json, allow_continue, created_at, updated_at) VALUES ('node-1', 'build box', 'ann@build', NULL, 1, ?, ?)`,
    T + 900_000,
    T + 900_000,
  );
  if (version < 15) return;
  run(db, `INSERT INTO owners VALUES (1, 'gw-1', 1, 4242, 'laptop')`);
  run(db, `INSERT INTO session_owners VALUES (?, 1, 1)`, WORKER);
  run(db, `UPDATE ownership_clock SET epoch = 1`);
  if (version < 16) return;
  run(db, `INSERT INTO ui_session_seen VALUES (?, ?)`, WORKER, T + 1_000_000);
  run(
    db,
    `INSERT INTO notice_deliveries (watcher_key, target_key, text, changes_since, drained_at, after_message_id) VALUES (?, ?, 'agent:main:subagent:7f3a changed', 1, ?, 4)`,
    MAIN,
    WORKER,
    T + 1_000_000,
  );
  if (version < 19) return;
  run(
    db,
    `INSERT INTO worktrees VALUES (?, '/data/worktrees/repo-abc123/fix-7f3a', 'sightline/fix-7f3a', 'main', ?, '/src/repo', 'ready', ?)`,
    WORKER,
    'a'.repeat(40),
    T + 1_100_000,
  );
  if (version < 21) return;
  run(
    db,
    `INSERT INTO catalog_index VALUES ('claude', '/home/p/.claude/projects/-src/0b9c2e4a.jsonl', 'c1:1200:1764000000000:42', '[]')`,
  );
}

/** Every row of every ordinary table (and the AUTOINCREMENT counters), keyed by table. */
function contents(db: Db): Map<string, Record<string, unknown>[]> {
  const tables = all(
    db,
    `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'session_messages_fts%' AND sql NOT LIKE 'CREATE VIRTUAL%'`,
  );
  return new Map(tables.map(({ name }) => [String(name), all(db, `SELECT * FROM "${String(name)}"`)]));
}

/** Each row from before is still there, with the same values in every column it had. */
function expectKept(
  before: Map<string, Record<string, unknown>[]>,
  after: Map<string, Record<string, unknown>[]>,
): void {
  for (const [table, rows] of before) {
    const now = after.get(table);
    expect(now, `table ${table} is gone`).toBeDefined();
    const project = (r: Record<string, unknown>) =>
      JSON.stringify(Object.keys(rows[0] ?? {}).map((c) => r[c]));
    const left = new Set(now!.map(project));
    for (const r of rows) expect(left.has(project(r)), `${table}: ${JSON.stringify(r)}`).toBe(true);
  }
}

const throwsOn = (db: Db, sql: string, ...params: unknown[]) =>
  expect(() => run(db, sql, ...params)).toThrow();
const indexSql = (db: Db, name: string) =>
  String(one(db, `SELECT sql FROM sqlite_master WHERE name = ?`, name)?.sql);

/** What each step changed, checked on the upgraded database (`before`: its rows at the version before). */
const CHECKS: Record<number, (db: Db) => void> = {
  1: (db) => {
    fill(db, 1);
    expect(one(db, `SELECT count(*) AS n FROM session_state_events`).n).toBe(4);
    throwsOn(
      db,
      `INSERT INTO session_state_events (session_key, agent_id, kind, actor_type, occurred_at, summary) VALUES ('x', 'main', 'nonsense', 'human', 1, 's')`,
    );
  },
  2: (db) => {
    expect(
      all(
        db,
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('agents', 'session_messages', 'session_goals', 'runs', 'acp_profiles') ORDER BY name`,
      ),
    ).toHaveLength(5);
    run(db, `INSERT INTO session_goals VALUES (?, 'Coordinate', 'active', 1)`, MAIN);
  },
  3: (db) => {
    run(db, `INSERT INTO catalog_own_texts (session_key, text, created_at) VALUES (?, 'hi', 1)`, ADOPTED);
    throwsOn(
      db,
      `INSERT INTO catalog_upstream_links (session_key, provider, thread_id, host_id, source_ref, source_hash, generation, created_at, updated_at) VALUES ('k', 'jot', 't', 'h', '{}', 'x', 1, 1, 1)`,
    );
  },
  4: (db) =>
    run(db, `INSERT INTO ui_inbox_dismissals VALUES ('upstream:agent:main:adopted:claude:0b9c2e4a:4', 1)`),
  5: (db) => {
    run(
      db,
      `INSERT INTO catalog_upstream_links (session_key, provider, thread_id, host_id, source_ref, source_hash, generation, created_at, updated_at) VALUES ('agent:main:adopted:jot:t', 'jot', 't', 'h', '{}', 'x', 1, 1, 1)`,
    );
    expect(indexSql(db, 'catalog_upstream_links_by_thread')).toContain('(provider, thread_id)');
  },
  6: (db) => {
    // The transcript written before search existed is found.
    expect(
      all(db, `SELECT rowid AS id FROM session_messages_fts WHERE session_messages_fts MATCH 'login'`),
    ).toEqual([{ id: 1 }]);
    run(db, `INSERT INTO ui_preferences VALUES ('theme', '"light"', 1)`);
  },
  7: (db) => {
    expect(indexSql(db, 'session_watch_cursors_pending')).toContain('WHERE notified > last_seen');
    const plan = all(
      db,
      `EXPLAIN QUERY PLAN SELECT target_key FROM session_watch_cursors WHERE watcher_key = ? AND notified > last_seen`,
      MAIN,
    );
    expect(plan.map((p) => p.detail).join(' ')).toContain('session_watch_cursors_pending');
  },
  8: (db) => {
    expect(
      one(db, `SELECT allow_agents, ask_terminal, command_rev FROM acp_profiles WHERE id = 'claude'`),
    ).toEqual({ allow_agents: 0, ask_terminal: 0, command_rev: '' });
    expect(one(db, `SELECT cwd FROM catalog_upstream_links WHERE session_key = ?`, ADOPTED)).toEqual({
      cwd: null,
    });
    run(db, `INSERT INTO consents VALUES ('continue:claude', 'claude --resume', 1)`);
  },
  9: (db) => {
    // Kept counters: the next event and message ids are above every row of the fill.
    expect(one(db, `SELECT seq FROM sqlite_sequence WHERE name = 'session_state_events'`).seq).toBe(4);
    expect(one(db, `SELECT seq FROM sqlite_sequence WHERE name = 'session_messages'`).seq).toBe(4);
    throwsOn(
      db,
      `INSERT INTO runs (run_id, session_key, status, started_at) VALUES ('r9', 'agent:main:nobody', 'idle', 1)`,
    );
    run(
      db,
      `INSERT INTO agents (id, name, provider, main_key, created_at, updated_at) VALUES ('ops', 'Ops', 'a-new-provider', 'agent:ops:main', 1, 1)`,
    );
    run(db, `DELETE FROM sessions WHERE key = ?`, WORKER);
    expect(one(db, `SELECT count(*) AS n FROM session_messages WHERE session_key = ?`, WORKER).n).toBe(0);
    expect(
      all(db, `SELECT rowid FROM session_messages_fts WHERE session_messages_fts MATCH 'login'`),
    ).toEqual([]);
  },
  10: (db) => {
    run(
      db,
      `INSERT INTO mcp_credentials (id, session_key, kind, secret_hash, port, created_at) VALUES ('c', ?, 'acp', 'h', 1, 1)`,
      WORKER,
    );
    run(db, `DELETE FROM sessions WHERE key = ?`, WORKER);
    expect(one(db, `SELECT count(*) AS n FROM mcp_credentials`).n).toBe(0);
    throwsOn(db, `INSERT INTO mcp_endpoint VALUES (2, 80, 1)`);
  },
  11: (db) =>
    expect(all(db, `SELECT key, cwd, archived FROM sessions ORDER BY created_at`)).toEqual(
      [MAIN, WORKER, ADOPTED].map((key) => ({ key, cwd: null, archived: 0 })),
    ),
  12: (db) =>
    run(
      db,
      `INSERT INTO acp_installs (profile_id, registry_id, version, distribution, source, installed_at) VALUES ('gemini', 'gemini', '0.6.1', 'npx', '@google/gemini-cli', 1)`,
    ),
  13: (db) =>
    expect(all(db, `SELECT DISTINCT diffs, upstream FROM session_messages`)).toEqual([
      { diffs: null, upstream: null },
    ]),
  14: (db) => {
    throwsOn(
      db,
      `INSERT INTO catalog_nodes (id, name, ssh, command_json, created_at, updated_at) VALUES ('n', 'both', 'a@b', '["x"]', 1, 1)`,
    );
    const plan = all(
      db,
      `EXPLAIN QUERY PLAN SELECT session_key FROM catalog_upstream_links WHERE host_id = 'host-1'`,
    );
    expect(plan.map((p) => p.detail).join(' ')).toContain('catalog_upstream_links_by_host');
  },
  15: (db) => {
    expect(one(db, `SELECT epoch FROM ownership_clock`)).toEqual({ epoch: 0 });
    throwsOn(db, `INSERT INTO session_owners VALUES (?, 99, 1)`, WORKER);
  },
  16: (db) => {
    run(
      db,
      `INSERT INTO notice_deliveries (watcher_key, target_key, text, changes_since, drained_at, after_message_id) VALUES (?, ?, 't', 1, 1, 0)`,
      MAIN,
      WORKER,
    );
    run(db, `INSERT INTO ui_session_seen VALUES (?, 1)`, WORKER);
  },
  17: (db) => {
    // Credentials and profiles from before reach existed keep their old meaning.
    expect(one(db, `SELECT reach FROM mcp_credentials WHERE id = 'cred-1'`)).toEqual({ reach: 'tree' });
    expect(one(db, `SELECT reach FROM acp_profiles WHERE id = 'claude'`)).toEqual({ reach: 'agent' });
  },
  18: (db) => {
    // A node paired before host keys were bound has none yet: it is bound at its next hello.
    expect(one(db, `SELECT id, host_key FROM catalog_nodes`)).toEqual({ id: 'node-1', host_key: null });
    run(db, `UPDATE catalog_nodes SET host_key = 'ssh-ed25519 AAAAC3Nza' WHERE id = 'node-1'`);
  },
  19: (db) => {
    // A worktree row may exist before its session (a start between `git worktree add` and the
    // commit): no foreign key; one row per session and per folder.
    const row = [
      'agent:main:acp:0badc0de',
      '/w/a',
      'sightline/a-0badc0de',
      'main',
      'c'.repeat(40),
      '/r',
      'creating',
      1,
    ];
    run(db, `INSERT INTO worktrees VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, ...row);
    throwsOn(db, `INSERT INTO worktrees VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, ...row);
    expect(one(db, `SELECT state FROM worktrees`)).toEqual({ state: 'creating' });
  },
  20: (db) => {
    // Runs from before report no cost and no context: shown as nothing, not as zero.
    const costs = db.prepare(`SELECT cost_amount, cost_currency, context_used, context_size FROM runs`).all();
    expect(costs.length).toBeGreaterThan(0);
    for (const c of costs)
      expect(c).toEqual({ cost_amount: null, cost_currency: null, context_used: null, context_size: null });
  },
  21: (db) => {
    // One index row per provider and unit; a changed stamp replaces the row.
    const row = ['claude', '/p/a.jsonl', 'c1:1:1:1', '[]'];
    run(db, `INSERT INTO catalog_index VALUES (?, ?, ?, ?)`, ...row);
    throwsOn(db, `INSERT INTO catalog_index VALUES (?, ?, ?, ?)`, ...row);
    run(db, `INSERT OR REPLACE INTO catalog_index VALUES ('claude', '/p/a.jsonl', 'c1:2:2:1', '[]')`);
    expect(one(db, `SELECT stamp FROM catalog_index WHERE unit = '/p/a.jsonl'`)).toEqual({
      stamp: 'c1:2:2:1',
    });
  },
  // Sessions adopted before it have no source recorded: the alert then names the tool alone.
  22: (db) =>
    expect(all(db, `SELECT key, source FROM sessions ORDER BY created_at`)).toEqual(
      [MAIN, WORKER, ADOPTED].map((key) => ({ key, source: null })),
    ),
};

describe('every migration on a database with data', () => {
  it('has its own check here', () => {
    expect(
      Object.keys(CHECKS).map(Number),
      'a new migration adds its entry to CHECKS (and its rows to fill) in this file',
    ).toEqual(MIGRATIONS.map((m) => m.version));
  });

  for (const m of MIGRATIONS) {
    it(`${String(m.version).padStart(3, '0')}-${m.name}: from version ${m.version - 1} with rows`, () => {
      const { db } = openAt(m.version - 1);
      if (m.version > 1) fill(db, m.version - 1);
      const before = contents(db);
      expect(migrateTo(db, MIGRATIONS, m.version)).toBe(m.version);
      expectKept(before, contents(db));
      expect(db.pragma('foreign_key_check')).toEqual([]);
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      CHECKS[m.version]?.(db);
      db.close();
    });
  }

  it('a database filled at version 2 and upgraded all the way opens in a gateway that reads it', () => {
    const { db, dir } = openAt(2);
    fill(db, 2);
    migrate(db, MIGRATIONS);
    db.close();
    const gw = createGateway({
      dataDir: dir,
      autoStart: false,
      now: () => T + 2_000_000,
      logger: collectingLogger(),
    });
    try {
      expect(gw.sessions.get(WORKER)?.parentKey).toBe(MAIN);
      expect(gw.state.version(WORKER)).toBe(3);
      expect(gw.goals.get(WORKER)?.objective).toBe('Fix the flaky login test');
      expect(gw.transcripts.all(WORKER).map((t) => t.role)).toEqual(['user', 'assistant', 'tool']);
      expect(gw.transcripts.search('login').map((h) => h.sessionKey)).toEqual([WORKER]);
      expect(gw.runs.list(MAIN)).toMatchObject([{ runId: 'run-2', status: 'failed', outcome: 'timeout' }]);
    } finally {
      gw.close();
    }
  });
});
