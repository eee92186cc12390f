// Paired nodes in the gateway (issue 19.3): the registry (catalog_nodes), one live connection per
// node, its state for Settings (online / offline since, last check, sessions seen), and
// reconnecting by itself with a backoff up to a minute while the node is listed. Adding a node
// first reaches it and reads its hello: a node that cannot be reached, or speaks another
// protocol, is never half-added (add.ts). The live state and its reconnecting are in live.ts.
import { GatewayError, notFound } from '../errors';
import type { NodeInfo } from '../types';
import type { NodeConnection } from './connection';
import { addNode, type NodeAddInput } from './add';
import { changed, connection, state, type Live, type NodesCtx, type NodesDeps } from './live';
import type { NodeHello } from './protocol';
import type { NodeRow } from './repository';

export { RECONNECT_FIRST_MS, RECONNECT_MAX_MS, type NodesDeps } from './live';
export type { NodeAddInput } from './add';

/**
 * A node's last check time is kept in memory and stored at most this often: a write on every
 * check would make every check re-read the watched links (their cache follows the database).
 */
export const CHECKED_STORED_MS = 60_000;

function info(r: NodeRow, l: Live | undefined): NodeInfo {
  const online = l?.conn !== undefined && !l.conn.closed;
  return {
    id: r.id,
    name: r.name,
    ...(r.ssh ? { ssh: r.ssh } : {}),
    ...(r.command_json ? { command: JSON.parse(r.command_json) as string[] } : {}),
    ...(r.node_command_json ? { nodeCommand: JSON.parse(r.node_command_json) as string[] } : {}),
    state: online ? 'online' : 'offline',
    ...(l?.lastCheckAt !== undefined || r.last_check_at !== null
      ? { lastCheckAt: Math.max(l?.lastCheckAt ?? 0, r.last_check_at ?? 0) }
      : {}),
    ...(!online && l?.offlineSince !== undefined ? { offlineSince: l.offlineSince } : {}),
    ...(r.sessions_seen !== null ? { sessions: r.sessions_seen } : {}),
    allowContinue: l?.hello ? l.hello.allowContinue : r.allow_continue === 1,
    ...(!online && l?.lastError ? { lastError: l.lastError } : {}),
    ...(l?.hello
      ? {
          nodeVersion: l.hello.nodeVersion,
          providers: l.hello.providers.map(({ id, label, available, reason }) => ({
            id,
            label,
            available,
            ...(reason ? { reason } : {}),
          })),
        }
      : {}),
  };
}

/** Forgets the node and its links (its sessions stay); the connection ends. */
function remove(ctx: NodesCtx, id: string): void {
  const q = ctx.deps.repo;
  if (!q.get(id)) throw notFound(`Unknown node: ${id}`);
  q.transaction(() => {
    ctx.deps.removeLinks(id);
    q.remove(id);
  });
  ctx.forgetIds();
  const l = ctx.live.get(id);
  ctx.live.delete(id);
  l?.retry?.();
  l?.conn?.close('the node was removed');
  changed(ctx);
  ctx.deps.emit({ type: 'catalog:changed' });
}

/** A check or list reached the node: kept, and stored at most every CHECKED_STORED_MS. */
function checked(ctx: NodesCtx, id: string, sessions?: number): void {
  const q = ctx.deps.repo;
  const l = state(ctx, id);
  const t = (l.lastCheckAt = ctx.deps.now());
  if (sessions !== undefined) q.seen(sessions, t, id);
  else if (l.storedCheckAt === undefined || t - l.storedCheckAt >= CHECKED_STORED_MS) q.checked(t, id);
  else return changed(ctx);
  l.storedCheckAt = t;
  changed(ctx);
}

/** The last check times not stored yet are stored; retries end; connections close. */
function close(ctx: NodesCtx): void {
  ctx.closed = true;
  for (const [id, l] of ctx.live) {
    if (l.lastCheckAt !== undefined && l.lastCheckAt !== l.storedCheckAt) {
      try {
        ctx.deps.repo.checked(l.lastCheckAt, id);
      } catch (err) {
        ctx.deps.logger.warn('nodes: cannot store the last check time', { nodeId: id, error: String(err) });
      }
    }
    l.retry?.();
    l.conn?.close('the gateway closed');
  }
}

export function createNodes(deps: NodesDeps) {
  const q = deps.repo;
  // Node ids change only through add/remove here (or another gateway): a cached set keeps
  // isNode() free of queries on the monitor's path.
  let ids: Set<string> | undefined;
  const allIds = () => (ids ??= new Set(q.all().map((r) => r.id)));
  const ctx: NodesCtx = {
    deps,
    live: new Map(),
    connected: [],
    timers: false,
    closed: false,
    forgetIds: () => void (ids = undefined),
  };
  const infoOf = (r: NodeRow) => info(r, ctx.live.get(r.id));

  return {
    async add(input: NodeAddInput): Promise<NodeInfo> {
      return infoOf(q.get(await addNode(ctx, input))!);
    },
    list: (): NodeInfo[] => q.all().map(infoOf),
    get(id: string): NodeInfo | undefined {
      const r = q.get(id);
      return r ? infoOf(r) : undefined;
    },
    /** Is this host id a listed node (its links are checked over the link)? */
    isNode(hostId: string): boolean {
      // This machine's own sessions are never a node's, whatever a row says (issue 29.6).
      return hostId !== deps.localId && allIds().has(hostId);
    },
    rename(id: string, name: string): NodeInfo {
      const n = typeof name === 'string' ? name.trim() : '';
      if (!n || n.length > 100)
        throw new GatewayError('invalid_argument', 'name must be 1 to 100 characters');
      if (!q.rename(n, deps.now(), id)) throw notFound(`Unknown node: ${id}`);
      changed(ctx);
      deps.emit({ type: 'catalog:changed' });
      return infoOf(q.get(id)!);
    },
    remove: (id: string): void => remove(ctx, id),
    connection: (id: string): Promise<NodeConnection> => connection(ctx, id),
    onConnection(listener: (id: string, conn: NodeConnection) => void): void {
      ctx.connected.push(listener);
    },
    /** The node's hello from its current or last connection. */
    hello: (id: string): NodeHello | undefined => ctx.live.get(id)?.hello,
    online(id: string): boolean {
      const c = ctx.live.get(id)?.conn;
      return c !== undefined && !c.closed;
    },
    checked: (id: string, sessions?: number): void => checked(ctx, id, sessions),
    /** The node did not answer in time: drop the connection (it shows offline; the next use reconnects). */
    drop(id: string, reason: string): void {
      ctx.live.get(id)?.conn?.drop(reason);
    },
    /** With the gateway's timers: reach every node now, and reconnect by itself when one drops. */
    start(): void {
      ctx.timers = true;
      for (const r of q.all()) connection(ctx, r.id).catch(() => {});
    },
    close: (): void => close(ctx),
  };
}

export type NodesService = ReturnType<typeof createNodes>;
