// What a node answers (issue 19.1): one machine's catalog through the same provider modules and
// rules as the gateway's own, read-only. list, find (describe one), baseline, watch and check (the
// monitor's checks of a watch set: what was added since each marker, bounded, classified; see
// watch.ts; with file events pushed as `changed` frames, file-watch.ts), tail (what adoption
// imports), and continue only when started with --allow-continue.
// Every ref a gateway sends is checked against the roots before anything is read; every answer is
// capped.
import path from 'node:path';
import type { CatalogEntry } from '../gateway/types';
import { isNotFound } from '../gateway/catalog/kit/fsio';
import type { SqliteOpener } from '../gateway/catalog/kit/sqlite';
import { runContinue } from './continue';
import { checkThreadId, guardSource } from '../gateway/catalog/thread-ids';
import type {
  MarkerFields,
  ProviderModule,
  ProviderSource,
  SourceRef,
  VisibleMessage,
} from '../gateway/catalog/provider';
import {
  ANSWER_CAP,
  PROTOCOL,
  READ_CAP,
  isObject,
  type ChangedFrame,
  type NodeHello,
  type ProviderStatus,
} from '../gateway/nodes/protocol';
import { NodeError } from './errors';
import { guardedFs } from './guard';
import type { NodeSqlite } from './sqlite';
import { createFileWatch } from './file-watch';
import { createWatchSet } from './watch';
import type { GuardedFs } from './guard';

export interface NodeServiceOptions {
  nodeId: string;
  name: string;
  providers: readonly ProviderModule[];
  /** Each provider's root (already resolved: overrides, else the tool's default). */
  roots: Readonly<Record<string, string>>;
  sqlite: NodeSqlite;
  allowContinue: boolean;
  env: NodeJS.ProcessEnv;
}

/** Entries of a list answer: the catalog's view without this gateway's host fields. */
export type NodeEntry = Omit<CatalogEntry, 'hostId' | 'hostName' | 'remote' | 'adopted'>;

/** The folders a provider reads: its root, and what it reads beside it (Codex's archive). */
export function readRoots(m: ProviderModule, root: string): string[] {
  return [root, ...(m.extraRoots?.(root) ?? [])];
}

const MAX_TEXT = 1024 * 1024;

function bad(message: string): never {
  throw new NodeError('bad_request', message);
}

function str(v: unknown, what: string, max = 4096): string {
  if (typeof v !== 'string' || v.length === 0 || v.length > max || v.includes('\0'))
    bad(`${what} must be a non-empty string of at most ${max} characters`);
  return v;
}

function strOrNull(v: unknown, what: string, max: number): string | null {
  if (v === null || v === undefined) return null;
  return str(v, what, max);
}

interface Served {
  module: ProviderModule;
  source: ProviderSource;
  status: ProviderStatus;
}

/** Each provider with a root, opened over the guarded file system (OpenCode needs node:sqlite). */
function openSources(o: NodeServiceOptions, gfs: GuardedFs): Map<string, Served> {
  const sqlite: SqliteOpener = (file) => {
    if (!o.sqlite.ok) throw new NodeError('unavailable', o.sqlite.reason);
    gfs.check(file);
    return o.sqlite.open(file);
  };
  const sources = new Map<string, Served>();
  for (const m of o.providers) {
    const root = o.roots[m.id];
    if (!root) continue;
    const needsSqlite = m.id === 'opencode';
    const status: ProviderStatus = {
      id: m.id,
      label: m.label,
      root,
      available: !needsSqlite || o.sqlite.ok,
      ...(needsSqlite && !o.sqlite.ok ? { reason: o.sqlite.reason } : {}),
    };
    sources.set(m.id, { module: m, source: guardSource(m, m.open(root, { fs: gfs, sqlite })), status });
  }
  return sources;
}

function nodeHello(o: NodeServiceOptions, sources: Map<string, Served>): NodeHello {
  return {
    type: 'hello',
    protocol: PROTOCOL,
    nodeId: o.nodeId,
    name: o.name,
    nodeVersion: process.versions.node,
    platform: process.platform,
    providers: [...sources.values()].map((s) => s.status),
    allowContinue: o.allowContinue,
    pushes: true,
  };
}

/** What the gateway sends, parsed: a provider it may use, a ref under the roots, a marker. */
function createParsers(sources: Map<string, Served>, gfs: GuardedFs) {
  function provider(v: unknown): Served {
    const id = str(v, 'provider', 64);
    const p = sources.get(id);
    if (!p) throw new NodeError('not_found', `this node has no catalog provider "${id}"`);
    if (!p.status.available)
      throw new NodeError('unavailable', p.status.reason ?? `${p.module.label} unavailable`);
    return p;
  }

  /** A ref from the gateway: plain strings; every absolute path in it under the roots. */
  function ref(v: unknown): SourceRef {
    if (!isObject(v)) bad('ref must be an object');
    const out: Record<string, string> = {};
    for (const [k, val] of Object.entries(v)) {
      out[k] = str(val, `ref.${k}`);
      // Lexically and once links are resolved (check does both).
      if (path.isAbsolute(out[k]!)) gfs.check(out[k]!);
    }
    if (typeof out.kind !== 'string') bad('ref.kind is required');
    return out as SourceRef;
  }

  /** The files to watch for a link: the provider's (else a file ref's path), each under the roots. */
  function files(source: ProviderSource, r: SourceRef): string[] {
    const all = source.watchPaths
      ? source.watchPaths(r)
      : r.kind === 'file' && typeof r.path === 'string'
        ? [r.path]
        : [];
    for (const f of all) gfs.check(f);
    return all;
  }

  /** One link of a watch set. */
  function link(item: Record<string, unknown>) {
    const p = provider(item.provider);
    const own = Array.isArray(item.own) ? item.own.filter((k) => typeof k === 'string').slice(0, 10) : [];
    const r = ref(item.ref);
    return {
      source: p.source,
      ref: r,
      marker: marker(item.marker),
      own: new Set(own as string[]),
      files: files(p.source, r),
    };
  }

  return { provider, ref, link };
}

function marker(v: unknown): MarkerFields {
  if (!isObject(v)) bad('marker must be an object');
  const offset = v.offset;
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0)
    bad('marker.offset must be a non-negative integer');
  return {
    offset,
    inode: strOrNull(v.inode, 'marker.inode', 200),
    markerJson: strOrNull(v.markerJson, 'marker.markerJson', 64 * 1024),
    scanState: strOrNull(v.scanState, 'marker.scanState', 256 * 1024),
  };
}

function list(sources: Map<string, Served>): { entries: NodeEntry[]; truncated: boolean } {
  const all: NodeEntry[] = [];
  for (const [id, p] of sources) {
    if (!p.status.available) continue;
    let units: string[] = [];
    try {
      units = p.source.units();
    } catch (err) {
      console.error(`node: cannot list ${id} sessions: ${String(err)}`);
    }
    for (const u of units) {
      try {
        for (const l of p.source.describe(u)) all.push(l.entry);
      } catch (err) {
        if (!isNotFound(err)) console.error(`node: cannot read a ${id} session: ${String(err)}`);
      }
    }
    p.source.endCheck?.();
  }
  all.sort((a, b) => (b.lastActivityAt ?? 0) - (a.lastActivityAt ?? 0));
  const entries: NodeEntry[] = [];
  let size = 0;
  for (const e of all) {
    size += JSON.stringify(e).length + 1;
    if (size > ANSWER_CAP) return { entries, truncated: true };
    entries.push(e);
  }
  return { entries, truncated: false };
}

type Parsers = ReturnType<typeof createParsers>;

function tail(parse: Parsers, args: Record<string, unknown>): { messages: VisibleMessage[] } {
  const p = parse.provider(args.provider);
  const limit = typeof args.limit === 'number' ? Math.max(0, Math.min(500, Math.floor(args.limit))) : 500;
  const messages = p.source.readTail(parse.ref(args.ref), limit);
  // Newest kept: drop the oldest until the answer fits one read.
  let size = messages.reduce((n, m) => n + JSON.stringify(m).length, 0);
  while (messages.length > 0 && size > READ_CAP) size -= JSON.stringify(messages.shift()).length;
  return { messages };
}

function find(parse: Parsers, args: Record<string, unknown>) {
  const p = parse.provider(args.provider);
  const threadId = str(args.threadId, 'threadId', 200);
  const loc = p.source.find(threadId);
  if (!loc)
    throw new NodeError('not_found', `${p.module.label} session ${threadId} was not found on this node`);
  return { entry: loc.entry, ref: loc.ref };
}

function baseline(parse: Parsers, args: Record<string, unknown>) {
  const p = parse.provider(args.provider);
  try {
    return p.source.baseline(parse.ref(args.ref));
  } catch (err) {
    if (isNotFound(err)) throw new NodeError('not_found', 'the session was not found on this node');
    throw err;
  }
}

function continueOp(o: NodeServiceOptions, parse: Parsers, args: Record<string, unknown>) {
  if (!o.allowContinue)
    throw new NodeError(
      'continue_disabled',
      'this node was started without --allow-continue: it only reads sessions, it does not send into them',
    );
  const p = parse.provider(args.provider);
  // Ids are data, never flags: checked here too (the gateway is not trusted with the CLI).
  const threadId = checkThreadId(p.module, str(args.threadId, 'threadId', 200));
  const text = str(args.text, 'text', MAX_TEXT);
  const cwd = typeof args.cwd === 'string' ? args.cwd : null;
  const cmd = p.source.continueCommand?.(threadId, text);
  if (!cmd)
    throw new NodeError('unavailable', `Continue is not available for ${p.module.label} sessions yet`);
  return runContinue(cmd, { env: o.env, cwd });
}

/**
 * The catalog a node serves one gateway connection. `push`: where the connection's `changed`
 * frames go (none: the links' files are never watched).
 */
export function createNodeService(o: NodeServiceOptions, push?: (f: ChangedFrame) => void) {
  const roots = Object.entries(o.roots).flatMap(([id, r]) => {
    const m = o.providers.find((p) => p.id === id);
    return m ? readRoots(m, r) : [];
  });
  const gfs = guardedFs(roots);
  const sources = openSources(o, gfs);
  const parse = createParsers(sources, gfs);
  const files = push ? createFileWatch({ push }) : undefined;
  /** The links this connection's gateway checks (one node process serves one connection). */
  const watched = createWatchSet(parse.link, files);

  async function handle(op: string, rawArgs: unknown): Promise<unknown> {
    gfs.reset();
    const args = isObject(rawArgs) ? rawArgs : {};
    switch (op) {
      case 'list':
        return list(sources);
      case 'find':
        return find(parse, args);
      case 'baseline':
        return baseline(parse, args);
      case 'watch':
        watched.update(args);
        return { watching: watched.size(), ...(files ? { files: files.files() } : {}) };
      case 'check':
        return watched.check(args);
      case 'tail':
        return tail(parse, args);
      case 'continue':
        return continueOp(o, parse, args);
      default:
        return bad(`unknown op "${op.slice(0, 64)}"`);
    }
  }

  return { hello: nodeHello(o, sources), handle, close: () => files?.close() };
}
