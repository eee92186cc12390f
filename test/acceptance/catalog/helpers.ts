// Acceptance helpers for the catalog (issue 4) and ACP children (issue 6).
// Written from the spec, the gateway contract and the transcript reference only.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import type { createGateway } from '../../../electron/gateway';
import { FakeClock, openTestGateway, T0, tempDir, type TestGateway } from '../../helpers/gateway';

export { MAIN, T0 } from '../../helpers/spec';
export type Provider = 'claude' | 'codex' | 'opencode' | 'pi';
export const PROVIDERS: Provider[] = ['claude', 'codex', 'opencode', 'pi'];

/* eslint-disable @typescript-eslint/no-explicit-any */
export type Gw = ReturnType<typeof createGateway> & Record<string, any>;

export interface Env {
  base: string;
  dataDir: string;
  roots: Record<Provider, string>;
  clock: FakeClock;
  now: () => number;
  /** A gateway on the env's data dir (several may be open at once: they share one database). */
  open(): Gw;
  cleanup(): void;
}

/**
 * The tools' folders and a data dir in one temp folder; each `open()` is a gateway of the one
 * harness (test/helpers/gateway.ts) on that data dir, at the spec's T0 on one fake clock.
 */
export function makeEnv(): Env {
  const base = tempDir('sl-accept-');
  const roots = {
    claude: path.join(base, 'claude', 'projects'),
    codex: path.join(base, 'codex', 'sessions'),
    opencode: path.join(base, 'opencode'),
    pi: path.join(base, 'pi', 'agent', 'sessions'),
  };
  for (const r of Object.values(roots)) fs.mkdirSync(r, { recursive: true });
  const clock = new FakeClock(T0);
  const dataDir = path.join(base, 'data');
  const opened: TestGateway[] = [];
  return {
    base,
    dataDir,
    roots,
    clock,
    now: clock.now,
    open() {
      const t = openTestGateway({ dataDir, clock, catalogRoots: roots, removes: base });
      opened.push(t);
      return t.gw as Gw;
    },
    cleanup() {
      // Every gateway closes before the folder goes: two may share its database.
      for (const t of opened) {
        try {
          t.gw.close();
        } catch {
          // closed already by the test
        }
      }
      for (const t of opened) t.cleanup();
      fs.rmSync(base, { recursive: true, force: true });
    },
  };
}

export const adoptedKey = (p: string, threadId: string) => `agent:main:adopted:${p}:${threadId}`;
export { contextKeyOf as contextKeyFor, noticeText } from '../../helpers/spec';

export function events(gw: Gw, key: string, after = 0): any[] {
  const out: any[] = [];
  let cur = after;
  for (;;) {
    const page = gw.state.changesSince(key, cur, { limit: 200 });
    out.push(...page.events);
    if (!page.truncated || page.events.length === 0) break;
    cur = page.events[page.events.length - 1]!.sequence;
  }
  return out;
}
export const ofKind = (gw: Gw, key: string, kind: string) => events(gw, key).filter((e) => e.kind === kind);
export const turnsOf = (e: any) => (typeof e.payload?.turns === 'number' ? e.payload.turns : 1);

export async function tick(env: Env, gw: Gw, n = 1) {
  for (let i = 0; i < n; i++) {
    env.clock.t += 60_000;
    await gw.catalog.tick();
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/* ---------------- upstream fixtures (shapes from reference/transcript-formats.md) ------------- */

export interface Upstream {
  provider: Provider;
  threadId: string;
  /** append one human turn (typed prompt) */
  human(text: string): void;
  /** append an agent reply / non-human rows */
  agent(text: string): void;
  remove(): void;
  close?(): void;
}

export function claudeSession(
  root: string,
  opts: { cwd?: string; entrypoint?: string | null } = {},
): Upstream {
  const id = randomUUID();
  const cwd = opts.cwd ?? '/home/ana/src/ledger-api';
  const dir = path.join(root, cwd.replace(/[^A-Za-z0-9]/g, '-'));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${id}.jsonl`);
  let parent: string | null = null;
  let t = T0 - 3_600_000;
  const row = (type: string, extra: Record<string, unknown>) => {
    const uuid = randomUUID();
    const r: Record<string, unknown> = {
      parentUuid: parent,
      isSidechain: false,
      userType: 'external',
      cwd,
      sessionId: id,
      version: '2.1.40',
      gitBranch: 'main',
      type,
      uuid,
      timestamp: iso((t += 1000)),
      ...extra,
    };
    if (opts.entrypoint !== null) r.entrypoint = opts.entrypoint ?? 'cli';
    parent = uuid;
    return JSON.stringify(r) + '\n';
  };
  const user = (text: string) => row('user', { message: { role: 'user', content: text } });
  const assistant = (text: string) =>
    row('assistant', {
      message: {
        id: `msg_${randomUUID().slice(0, 8)}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'text', text }],
        stop_reason: 'end_turn',
      },
      requestId: 'req_1',
    });
  fs.writeFileSync(
    file,
    JSON.stringify({
      type: 'file-history-snapshot',
      messageId: 'x',
      snapshot: { messageId: 'x', trackedFileBackups: {}, timestamp: iso(t) },
      isSnapshotUpdate: false,
    }) +
      '\n' +
      user('The /invoices endpoint returns 500 when currency is missing. Find out why.') +
      assistant('Looking.'),
  );
  return {
    provider: 'claude',
    threadId: id,
    human: (text) => fs.appendFileSync(file, user(text)),
    agent: (text) => fs.appendFileSync(file, assistant(text)),
    remove: () => fs.rmSync(file),
    // exposed for sidechain fixtures
    ...({ file, dir } as object),
  } as Upstream;
}

export function codexSession(root: string): Upstream & { file: string } {
  const id = `019cb3f2-8a1b-7d30-${randomUUID().slice(19)}`;
  let t = T0 - 3_600_000;
  // Codex files its rollouts by day: <yyyy>/<mm>/<dd>/rollout-<start>-<id>.jsonl
  const dir = path.join(root, ...iso(t).slice(0, 10).split('-'));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `rollout-${iso(t).slice(0, 19).replace(/:/g, '-')}-${id}.jsonl`);
  const line = (type: string, payload: unknown) =>
    JSON.stringify({ timestamp: iso((t += 1000)), type, payload }) + '\n';
  const userMsg = (text: string) =>
    line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text }] }) +
    line('event_msg', {
      type: 'user_message',
      message: text,
      images: [],
      local_images: [],
      text_elements: [],
    });
  fs.writeFileSync(
    file,
    line('session_meta', {
      id,
      timestamp: iso(t),
      cwd: '/home/ana/src/ledger-api',
      originator: 'codex_cli_rs',
      cli_version: '0.98.0',
      source: 'cli',
      model_provider: 'openai',
      base_instructions: { text: 'You are Codex.' },
    }) +
      line('response_item', {
        type: 'message',
        role: 'user',
        content: [
          {
            type: 'input_text',
            text: '# AGENTS.md instructions for /x\n\n<INSTRUCTIONS>\nbe nice\n</INSTRUCTIONS>',
          },
        ],
      }) +
      line('turn_context', { cwd: '/home/ana/src/ledger-api', model: 'gpt-5.3-codex' }) +
      userMsg('add a regression test for the missing-currency 500') +
      line('event_msg', { type: 'agent_message', message: 'Added.' }),
  );
  return {
    provider: 'codex',
    threadId: id,
    file,
    human: (text) => fs.appendFileSync(file, userMsg(text)),
    agent: (text) => fs.appendFileSync(file, line('event_msg', { type: 'agent_message', message: text })),
    remove: () => fs.rmSync(file),
  };
}

export function piSession(root: string): Upstream & { file: string } {
  const id = randomUUID();
  const dir = path.join(root, '--home-ana-src-ledger-api--');
  fs.mkdirSync(dir, { recursive: true });
  let t = T0 - 3_600_000;
  const file = path.join(dir, `${iso(t).replace(/[:.]/g, '-')}_${id}.jsonl`);
  let parent: string | null = null;
  let n = 0;
  const entry = (message: Record<string, unknown>) => {
    const eid = (0x10000000 + ++n).toString(16);
    const s = JSON.stringify({
      type: 'message',
      id: eid,
      parentId: parent,
      timestamp: iso((t += 1000)),
      message: { ...message, timestamp: t },
    });
    parent = eid;
    return s + '\n';
  };
  const user = (text: string) => entry({ role: 'user', content: [{ type: 'text', text }] });
  const assistant = (text: string) =>
    entry({
      role: 'assistant',
      content: [{ type: 'text', text }],
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      stopReason: 'stop',
    });
  fs.writeFileSync(
    file,
    JSON.stringify({ type: 'session', version: 3, id, timestamp: iso(t), cwd: '/home/ana/src/ledger-api' }) +
      '\n' +
      user('why does /invoices 500 without a currency?') +
      assistant('Reading.'),
  );
  return {
    provider: 'pi',
    threadId: id,
    file,
    human: (text) => fs.appendFileSync(file, user(text)),
    agent: (text) => fs.appendFileSync(file, assistant(text)),
    remove: () => fs.rmSync(file),
  };
}

/** An OpenCode SQLite store (reference §3.1–3.2), written by "OpenCode" with its own connection. */
export class OpenCodeDb {
  db: Database.Database;
  private seq = 0;
  constructor(
    readonly root: string,
    readonly clock: { t: number },
  ) {
    fs.mkdirSync(root, { recursive: true });
    this.db = new Database(path.join(root, 'opencode.db'));
    this.db.pragma('journal_mode = WAL');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS project (id TEXT PRIMARY KEY, worktree TEXT, vcs TEXT, name TEXT,
        time_created INTEGER, time_updated INTEGER);
      CREATE TABLE IF NOT EXISTS session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, workspace_id TEXT,
        parent_id TEXT, slug TEXT, directory TEXT NOT NULL, path TEXT, title TEXT NOT NULL, version TEXT NOT NULL,
        share_url TEXT, summary_additions INTEGER, summary_deletions INTEGER, summary_files INTEGER,
        summary_diffs TEXT, cost REAL, tokens_input INTEGER, tokens_output INTEGER, revert TEXT, permission TEXT,
        agent TEXT, model TEXT, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL,
        time_compacting INTEGER, time_archived INTEGER);
      CREATE TABLE IF NOT EXISTS message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL
        REFERENCES session(id) ON DELETE CASCADE, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL,
        data TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL
        REFERENCES message(id) ON DELETE CASCADE, session_id TEXT NOT NULL, time_created INTEGER NOT NULL,
        time_updated INTEGER NOT NULL, data TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS message_session_idx ON message(session_id);
      CREATE INDEX IF NOT EXISTS part_message_idx ON part(message_id);
    `);
    this.db.pragma('foreign_keys = ON');
    this.db
      .prepare('INSERT OR IGNORE INTO project (id, worktree, time_created, time_updated) VALUES (?,?,?,?)')
      .run('9c1b7e2a5d', '/home/ana/src/ledger-api', T0, T0);
  }
  private id(prefix: string) {
    const t = this.clock.t - 3_600_000 + ++this.seq * 1000;
    return `${prefix}_${t.toString(16).padStart(12, '0')}${String(this.seq).padStart(14, '0')}`;
  }
  private stamp() {
    return this.clock.t - 3_600_000 + this.seq * 1000;
  }
  session(opts: { parentId?: string } = {}): Upstream {
    const sid = `ses_${randomUUID().replace(/-/g, '').slice(0, 26)}`;
    const t = this.stamp();
    this.db
      .prepare(
        `INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated)
         VALUES (?,?,?,?,?,?,?,?,?)`,
      )
      .run(
        sid,
        '9c1b7e2a5d',
        opts.parentId ?? null,
        'brave-otter',
        '/home/ana/src/ledger-api',
        'Fix 500',
        '1.2.10',
        t,
        t,
      );
    const addMessage = (role: 'user' | 'assistant', parts: Record<string, unknown>[]) => {
      const tx = this.db.transaction(() => {
        const mid = this.id('msg');
        const mt = this.stamp();
        const data =
          role === 'user'
            ? {
                role,
                time: { created: mt },
                agent: 'build',
                model: { providerID: 'anthropic', modelID: 'claude-sonnet-4-5' },
              }
            : {
                role,
                parentID: null,
                providerID: 'anthropic',
                modelID: 'claude-sonnet-4-5',
                mode: 'build',
                time: { created: mt, completed: mt + 10 },
                cost: 0,
                tokens: { input: 1, output: 1, reasoning: 0, cache: { read: 0, write: 0 } },
              };
        this.db
          .prepare(
            'INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?)',
          )
          .run(mid, sid, mt, mt, JSON.stringify(data));
        for (const p of parts)
          this.db
            .prepare(
              'INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?,?)',
            )
            .run(this.id('prt'), mid, sid, mt, mt, JSON.stringify(p));
        this.db.prepare('UPDATE session SET time_updated = ? WHERE id = ?').run(mt, sid);
      });
      tx();
    };
    addMessage('user', [{ type: 'text', text: 'the /invoices endpoint 500s when currency is missing' }]);
    addMessage('assistant', [{ type: 'text', text: 'Looking.' }]);
    return {
      provider: 'opencode',
      threadId: sid,
      human: (text) => addMessage('user', [{ type: 'text', text }]),
      agent: (text) => addMessage('assistant', [{ type: 'text', text }]),
      remove: () => {
        this.db.prepare('DELETE FROM part WHERE session_id = ?').run(sid);
        this.db.prepare('DELETE FROM message WHERE session_id = ?').run(sid);
        this.db.prepare('DELETE FROM session WHERE id = ?').run(sid);
      },
      // a synthetic-only user message (not human) and a real prompt with an extra synthetic part
      ...({
        synthetic: (text: string) => addMessage('user', [{ type: 'text', synthetic: true, text }]),
        promptWithSynthetic: (text: string) =>
          addMessage('user', [
            { type: 'text', text },
            { type: 'text', synthetic: true, text: 'Plan mode is active.' },
          ]),
      } as object),
    } as Upstream;
  }
  close() {
    this.db.close();
  }
}

export function makeUpstream(env: Env, p: Provider, oc?: OpenCodeDb): Upstream {
  switch (p) {
    case 'claude':
      return claudeSession(env.roots.claude);
    case 'codex':
      return codexSession(env.roots.codex);
    case 'pi':
      return piSession(env.roots.pi);
    case 'opencode':
      return oc!.session();
  }
}

/* ---------------- processes ---------------- */

/** pids of live processes whose command line contains `marker` */
export function pidsWith(marker: string): number[] {
  const out: number[] = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8');
      if (!cmd.includes(marker)) continue;
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state !== 'Z') out.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return out;
}

export { waitFor } from '../../helpers/poll';
