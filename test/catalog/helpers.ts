// Test harness for the catalog: a real state database (all migrations) with small in-memory
// stand-ins for Sessions and SessionState that follow the contract's semantics the catalog relies
// on (dedupe keys, `undefined` on a failed record, watch registration as a cursor row).
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase, type Db } from '../../electron/gateway/db/open';
import {
  createCatalog,
  type CatalogDeps,
  type CatalogService,
  type ProviderModule,
  type VisibleMessage,
} from '../../electron/gateway/catalog';
import type { CatalogFs } from '../../electron/gateway/catalog/kit/fsio';
import { createLinkRepo } from '../../electron/gateway/catalog/links';
import { createNodes, type NodesService } from '../../electron/gateway/nodes/service';
import { realScheduler, type Scheduler } from '../../electron/gateway/scheduler';
import { createSessionStore } from '../../electron/gateway/sessions/store';
import { tempDir } from '../helpers/temp';
import type {
  RecordInput,
  SessionInfo,
  SessionState,
  Sessions,
  StateEvent,
} from '../../electron/gateway/types';
import { silentLogger } from '../helpers/logger';
import { createNodeRepository } from '../../electron/gateway/nodes/repository';

export interface Recorded extends RecordInput {
  sequence: number;
}

export interface Harness {
  dir: string;
  db: Db;
  roots: { claude: string; codex: string; opencode: string; pi: string };
  catalog: CatalogService;
  events: Recorded[];
  imported: Map<string, { role: string; text: string; toolCalls?: { name: string }[] }[]>;
  /** With `live`: per session, the visible messages the checks handed over, in order. */
  live: Map<string, VisibleMessage[]>;
  /** Make the next n record() calls fail (return undefined). */
  failRecords(n: number): void;
  clock: { t: number };
  cleanup(): void;
}

export { tempDir as tmpDir } from '../helpers/temp';

export interface HarnessOptions {
  fs?: CatalogFs;
  env?: NodeJS.ProcessEnv;
  providerBudgetMs?: number;
  /** Other providers than the registered four, with their roots. */
  providers?: readonly ProviderModule[];
  roots?: Record<string, string>;
  /** false: no file events, the cadence alone (default: on). */
  fileEvents?: boolean;
  /** The monitor's timers (default: real ones). */
  scheduler?: Scheduler;
  /** Collect the visible messages of what each check consumed (live transcripts) in `live`. */
  live?: boolean;
  /** Called when a watched root gains or loses a transcript (the gateway's catalog:changed). */
  onChanged?: () => void;
}

export function makeHarness(opts: HarnessOptions = {}): Harness {
  const dir = tempDir('sightline-catalog-');
  const db = openDatabase(path.join(dir, 'data'));
  const roots = {
    claude: path.join(dir, 'claude', 'projects'),
    codex: path.join(dir, 'codex', 'sessions'),
    opencode: path.join(dir, 'opencode'),
    pi: path.join(dir, 'pi', 'sessions'),
  };
  for (const r of Object.values(roots)) fs.mkdirSync(r, { recursive: true });
  const clock = { t: Date.parse('2026-03-02T12:00:00Z') };
  const events: Recorded[] = [];
  const byDedupe = new Map<string, Recorded>();
  let failing = 0;
  const sessionMap = new Map<string, SessionInfo>();
  const sessionStore = createSessionStore(db, () => clock.t);
  const sessions: Sessions = {
    create(input) {
      if (sessionMap.has(input.key)) throw new Error(`Session exists: ${input.key}`);
      const info: SessionInfo = {
        key: input.key,
        agentId: 'main',
        createdAt: clock.t,
        updatedAt: clock.t,
        ...(input.label ? { label: input.label } : {}),
      };
      sessionMap.set(input.key, info);
      // The real registry row too: links and texts reference it (foreign keys).
      sessionStore.create({ key: input.key });
      return info;
    },
    get: (key) => sessionMap.get(key),
    list: () => [...sessionMap.values()],
    reset() {},
    delete(key) {
      sessionMap.delete(key);
    },
  };
  const toEvent = (r: Recorded): StateEvent => ({
    sequence: r.sequence,
    kind: r.kind,
    actorType: r.actorType,
    occurredAt: clock.t,
    summary: r.summary,
  });
  const state: SessionState = {
    record(input) {
      if (failing > 0) {
        failing--;
        return undefined;
      }
      if (input.dedupeKey && byDedupe.has(input.dedupeKey)) return toEvent(byDedupe.get(input.dedupeKey)!);
      const r: Recorded = { ...input, sequence: events.length + 1 };
      events.push(r);
      if (input.dedupeKey) byDedupe.set(input.dedupeKey, r);
      return toEvent(r);
    },
    registerWatch(watcher, target) {
      db.prepare(
        `INSERT OR IGNORE INTO session_watch_cursors (watcher_key, target_key, last_seen, notified, material, updated_at) VALUES (?, ?, 0, 0, 0, ?)`,
      ).run(watcher, target, clock.t);
      return true;
    },
    acknowledge() {},
    version: () => events.length,
    changesSince: () => ({
      stateVersion: 0,
      events: [],
      truncated: false,
      earliestAvailableSequence: 0,
      historyGap: false,
    }),
    cursor: () => undefined,
    sweep() {},
    prune() {},
  };
  const imported: Harness['imported'] = new Map();
  const live: Harness['live'] = new Map();
  const deps: CatalogDeps = {
    db,
    nodes: catalogNodes(db, () => clock.t),
    sessions,
    state,
    now: () => clock.t,
    roots: { ...roots, ...opts.roots },
    logger: silentLogger,
    importTranscript(key, messages) {
      imported.set(key, [
        ...(imported.get(key) ?? []),
        ...messages.map((m) => ({
          role: m.role,
          text: m.text,
          ...(m.toolCalls ? { toolCalls: m.toolCalls.map((c) => ({ name: c.name })) } : {}),
        })),
      ]);
    },
    hostId: 'test-host',
    ...(opts.fs ? { fs: opts.fs } : {}),
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.providerBudgetMs !== undefined ? { providerBudgetMs: opts.providerBudgetMs } : {}),
    ...(opts.providers ? { providers: opts.providers } : {}),
    ...(opts.scheduler ? { scheduler: opts.scheduler } : {}),
    ...(opts.fileEvents !== undefined ? { fileEvents: opts.fileEvents } : {}),
    ...(opts.onChanged ? { onChanged: opts.onChanged } : {}),
    ...(opts.live
      ? {
          onUpstreamMessages: (link: { sessionKey: string }, messages: VisibleMessage[]) =>
            live.set(link.sessionKey, [...(live.get(link.sessionKey) ?? []), ...messages]),
        }
      : {}),
  };
  const catalog = createCatalog(deps);
  return {
    dir,
    db,
    roots,
    catalog,
    events,
    imported,
    live,
    failRecords(n) {
      failing = n;
    },
    clock,
    cleanup() {
      catalog.stop();
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The nodes service as the composition root builds it, with no node paired (never started). */
export function catalogNodes(db: Db, now: () => number): NodesService {
  const links = createLinkRepo(db);
  return createNodes({
    repo: createNodeRepository(db),
    now,
    scheduler: realScheduler,
    logger: silentLogger,
    emit() {},
    launch: { sshCommand: ['ssh'] },
    helloTimeoutMs: 20_000,
    removeLinks: (hostId) => links.removeHost(hostId),
    localId: 'this-machine',
  });
}

/** Human-activity events recorded so far, and the sum of their turns. */
export function humanTurns(events: Recorded[], sessionKey?: string): { events: number; turns: number } {
  const hs = events.filter(
    (e) => e.kind === 'human_direct_message' && (sessionKey === undefined || e.sessionKey === sessionKey),
  );
  return {
    events: hs.length,
    turns: hs.reduce((n, e) => n + (typeof e.payload?.turns === 'number' ? e.payload.turns : 1), 0),
  };
}

export function linkRow(db: Db, sessionKey: string): Record<string, unknown> | undefined {
  return db.prepare('SELECT * FROM catalog_upstream_links WHERE session_key = ?').get(sessionKey) as
    Record<string, unknown> | undefined;
}

export function line(o: unknown): string {
  return `${JSON.stringify(o)}\n`;
}

/** A deterministic generator for chunk sizes. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** A minimal zstd frame of raw (stored) blocks: enough for fzstd to read, no compressor needed. */
export function zstdStore(data: Buffer): Buffer {
  const parts: Buffer[] = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), Buffer.from([0x00, 0x58])]; // magic; FHD: no checksum, no size, window desc
  const MAX = 128 * 1024;
  let pos = 0;
  do {
    const n = Math.min(MAX, data.length - pos);
    const last = pos + n >= data.length ? 1 : 0;
    const header = (n << 3) | (0 << 1) | last;
    parts.push(
      Buffer.from([header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff]),
      data.subarray(pos, pos + n),
    );
    pos += n;
  } while (pos < data.length);
  return Buffer.concat(parts);
}
