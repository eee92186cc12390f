// Each paired node's live state in the gateway (nodes/service.ts): its connection, hello, offline
// since, backoff and retry, and the reconnecting state machine around them (going offline,
// adopting a new connection, reaching a listed node with its host key and id checked).
import { GatewayError, notFound } from '../errors';
import type { Cancel, Scheduler } from '../scheduler';
import type { GatewayEvent, Logger } from '../types';
import { NodeOfflineError, type NodeConnection } from './connection';
import type { Consent } from '../trust/consent';
import { hostKeyOf as readHostKey } from './host-key';
import { launchNode, type LaunchOptions, type NodeSpec } from './launch';
import type { NodeHello } from './protocol';
import type { NodeRepository, NodeRow } from './repository';

export const RECONNECT_FIRST_MS = 1000;
export const RECONNECT_MAX_MS = 60_000;

export interface NodesDeps {
  repo: NodeRepository;
  now: () => number;
  scheduler: Scheduler;
  logger: Logger;
  emit(e: GatewayEvent): void;
  launch: Omit<LaunchOptions, 'helloTimeoutMs'>;
  /** How long a node may take to start and say hello (SSH included). */
  helloTimeoutMs: number;
  /** The person's consent to a node command they named (default: none asked, trusted). */
  confirm?: Consent['confirm'];
  /** The links of a removed node go with it (no upstream_missing: the person chose it). */
  removeLinks(hostId: string): void;
  /** This machine's own host id (the catalog's): no node may claim it. */
  localId: string;
  /** The host key binding of an SSH destination (host-key.ts; tests may pass their own). */
  hostKeyOf?: (dest: string) => Promise<string>;
}

export interface Live {
  conn?: NodeConnection;
  hello?: NodeHello;
  connecting?: Promise<NodeConnection>;
  offlineSince?: number;
  lastError?: string;
  backoffMs: number;
  retry?: Cancel;
  /** The last check that reached the node (stored every CHECKED_STORED_MS). */
  lastCheckAt?: number;
  storedCheckAt?: number;
}

/** What the nodes service shares with its parts. */
export interface NodesCtx {
  deps: NodesDeps;
  live: Map<string, Live>;
  /** Who hears of each new connection (the agent links re-attach their channels). */
  connected: ((id: string, conn: NodeConnection) => void)[];
  /** With the gateway's timers (start()): reconnect by itself. */
  timers: boolean;
  closed: boolean;
  /** The cached set of node ids is stale (a node was added or removed). */
  forgetIds(): void;
}

export function spec(r: NodeRow): NodeSpec {
  return r.ssh
    ? {
        ssh: r.ssh,
        ...(r.node_command_json ? { nodeCommand: JSON.parse(r.node_command_json) as string[] } : {}),
        allowContinue: r.allow_continue === 1,
      }
    : { command: JSON.parse(r.command_json!) as string[] };
}

export function state(ctx: NodesCtx, id: string): Live {
  let l = ctx.live.get(id);
  if (!l) ctx.live.set(id, (l = { backoffMs: RECONNECT_FIRST_MS }));
  return l;
}

export const changed = (ctx: NodesCtx) => ctx.deps.emit({ type: 'nodes:changed' });

function wentOffline(ctx: NodesCtx, id: string, why: string): void {
  const l = state(ctx, id);
  l.conn = undefined;
  l.offlineSince ??= ctx.deps.now();
  l.lastError = why;
  changed(ctx);
  if (ctx.timers && !ctx.closed && ctx.deps.repo.get(id)) {
    l.retry?.();
    const wait = l.backoffMs;
    l.backoffMs = Math.min(RECONNECT_MAX_MS, l.backoffMs * 2);
    l.retry = ctx.deps.scheduler.after(wait, () => {
      l.retry = undefined;
      connection(ctx, id).catch(() => {
        // Logged by connect; the next backoff is scheduled by wentOffline.
      });
    });
  }
}

export function adopt(ctx: NodesCtx, id: string, conn: NodeConnection, hello: NodeHello): void {
  const l = state(ctx, id);
  l.conn = conn;
  l.hello = hello;
  l.offlineSince = undefined;
  l.lastError = undefined;
  l.backoffMs = RECONNECT_FIRST_MS;
  conn.onClose(() => {
    if (l.conn !== conn) return;
    const why = conn.closeReason();
    ctx.deps.logger.warn('nodes: node offline', { nodeId: id, reason: why });
    wentOffline(ctx, id, why);
  });
  changed(ctx);
  for (const listener of ctx.connected) listener(id, conn);
}

export const hostKeyOf = (deps: NodesDeps) =>
  deps.hostKeyOf ?? ((dest: string) => readHostKey(deps.launch, dest));

/**
 * An SSH node's host key must be the one it was paired with (a node paired before keys were
 * bound is bound now). Another key: refused until the person pairs the node again.
 */
async function checkHostKey(deps: NodesDeps, row: NodeRow): Promise<void> {
  if (!row.ssh) return;
  const key = await hostKeyOf(deps)(row.ssh);
  if (row.host_key === null) deps.repo.bindKey(key, row.id);
  else if (row.host_key !== key)
    throw new NodeOfflineError(
      `the SSH host key of ${row.ssh} is not the one this node was paired with: remove the node and add it again if the machine really changed`,
    );
}

/** A node's claimed id: never this machine's own, never empty or odd. */
export function checkClaim(deps: NodesDeps, hello: NodeHello): void {
  if (hello.nodeId === deps.localId || !/^[A-Za-z0-9._:-]{1,128}$/.test(hello.nodeId))
    throw new GatewayError(
      'invalid_argument',
      `refused: the node claims the id "${hello.nodeId.slice(0, 128)}", which is this machine's own or not a node id`,
    );
}

/** The hello of a reconnect: this node's, still listed, with a claim that is allowed. */
function checkReconnect(ctx: NodesCtx, id: string, conn: NodeConnection, hello: NodeHello): void {
  if (ctx.closed || !ctx.deps.repo.get(id)) {
    conn.close('the node was removed');
    throw new NodeOfflineError('the node was removed');
  }
  try {
    checkClaim(ctx.deps, hello);
  } catch (err) {
    conn.close('refused');
    throw new NodeOfflineError((err as Error).message);
  }
  if (hello.nodeId !== id) {
    conn.close('another node answered');
    throw new NodeOfflineError(
      `another machine answered (node id ${hello.nodeId}, expected ${id}): remove this node and add it again if that is intended`,
    );
  }
}

/** The live connection of a listed node, started when there is none (bounded by the hello timeout). */
export function connection(ctx: NodesCtx, id: string): Promise<NodeConnection> {
  const { deps } = ctx;
  if (ctx.closed) return Promise.reject(new NodeOfflineError('the gateway is closing'));
  const l = state(ctx, id);
  if (l.conn && !l.conn.closed) return Promise.resolve(l.conn);
  if (l.connecting) return l.connecting;
  const row = deps.repo.get(id);
  if (!row) return Promise.reject(notFound(`Unknown node: ${id}`));
  l.retry?.();
  l.retry = undefined;
  const attempt = checkHostKey(deps, row)
    .then(() => launchNode(spec(row), { ...deps.launch, helloTimeoutMs: deps.helloTimeoutMs }))
    .then(({ conn, hello }) => {
      checkReconnect(ctx, id, conn, hello);
      adopt(ctx, id, conn, hello);
      deps.logger.info('nodes: node online', { nodeId: id });
      return conn;
    })
    .catch((err: unknown) => {
      const why = err instanceof Error ? err.message : String(err);
      deps.logger.warn('nodes: cannot reach node', { nodeId: id, reason: why });
      wentOffline(ctx, id, why);
      throw err instanceof NodeOfflineError ? err : new NodeOfflineError(why);
    })
    .finally(() => {
      l.connecting = undefined;
    });
  l.connecting = attempt;
  return attempt;
}
