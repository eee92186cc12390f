// Paired nodes in the gateway (issue 19.3): the registry (catalog_nodes), one live connection per
// node, its state for Settings (online / offline since, last check, sessions seen), and
// reconnecting by itself with a backoff up to a minute while the node is listed. Adding a node
// first reaches it and reads its hello: a node that cannot be reached, or speaks another
// protocol, is never half-added.
// Over 300 lines on purpose: the registry and each node's live state (connecting, online,
// offline since, backoff) are one state machine, kept in one place.
import { GatewayError, notFound } from '../errors';
import type { Cancel, Scheduler } from '../scheduler';
import type { GatewayEvent, Logger, NodeInfo } from '../types';
import { NodeOfflineError, type NodeConnection } from './connection';
import type { Consent } from '../trust/consent';
import { hostKeyOf as readHostKey } from './host-key';
import { launchNode, namedCommandLine, NodeStartError, type LaunchOptions, type NodeSpec } from './launch';
import type { NodeHello } from './protocol';
import type { NodeRepository, NodeRow } from './repository';

export const RECONNECT_FIRST_MS = 1000;
export const RECONNECT_MAX_MS = 60_000;
/**
 * A node's last check time is kept in memory and stored at most this often: a write on every
 * check would make every check re-read the watched links (their cache follows the database).
 */
export const CHECKED_STORED_MS = 60_000;

export interface NodeAddInput {
  ssh?: string;
  command?: string[];
  nodeCommand?: string[];
  name?: string;
  /** Addition: with ssh and the bundled node file, start it with --allow-continue. */
  allowContinue?: boolean;
}

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

interface Live {
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

function spec(r: NodeRow): NodeSpec {
  return r.ssh
    ? {
        ssh: r.ssh,
        ...(r.node_command_json ? { nodeCommand: JSON.parse(r.node_command_json) as string[] } : {}),
        allowContinue: r.allow_continue === 1,
      }
    : { command: JSON.parse(r.command_json!) as string[] };
}

export function createNodes(deps: NodesDeps) {
  const { repo: q, now, logger } = deps;
  const live = new Map<string, Live>();
  /** Who hears of each new connection (the agent links re-attach their channels). */
  const connected: ((id: string, conn: NodeConnection) => void)[] = [];
  let timers = false;
  let closed = false;
  // Node ids change only through add/remove here (or another gateway): a cached set keeps
  // isNode() free of queries on the monitor's path.
  let ids: Set<string> | undefined;
  const allIds = () => (ids ??= new Set(q.all().map((r) => r.id)));

  const state = (id: string): Live => {
    let l = live.get(id);
    if (!l) live.set(id, (l = { backoffMs: RECONNECT_FIRST_MS }));
    return l;
  };

  function info(r: NodeRow): NodeInfo {
    const l = live.get(r.id);
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

  const changed = () => deps.emit({ type: 'nodes:changed' });

  function wentOffline(id: string, why: string): void {
    const l = state(id);
    l.conn = undefined;
    l.offlineSince ??= now();
    l.lastError = why;
    changed();
    if (timers && !closed && q.get(id)) {
      l.retry?.();
      const wait = l.backoffMs;
      l.backoffMs = Math.min(RECONNECT_MAX_MS, l.backoffMs * 2);
      l.retry = deps.scheduler.after(wait, () => {
        l.retry = undefined;
        connection(id).catch(() => {
          // Logged by connect; the next backoff is scheduled by wentOffline.
        });
      });
    }
  }

  function adopt(id: string, conn: NodeConnection, hello: NodeHello): void {
    const l = state(id);
    l.conn = conn;
    l.hello = hello;
    l.offlineSince = undefined;
    l.lastError = undefined;
    l.backoffMs = RECONNECT_FIRST_MS;
    conn.onClose(() => {
      if (l.conn !== conn) return;
      const why = conn.closeReason();
      logger.warn('nodes: node offline', { nodeId: id, reason: why });
      wentOffline(id, why);
    });
    changed();
    for (const listener of connected) listener(id, conn);
  }

  const hostKeyOf = deps.hostKeyOf ?? ((dest: string) => readHostKey(deps.launch, dest));

  /**
   * An SSH node's host key must be the one it was paired with (a node paired before keys were
   * bound is bound now). Another key: refused until the person pairs the node again.
   */
  async function checkHostKey(row: NodeRow): Promise<void> {
    if (!row.ssh) return;
    const key = await hostKeyOf(row.ssh);
    if (row.host_key === null) q.bindKey(key, row.id);
    else if (row.host_key !== key)
      throw new NodeOfflineError(
        `the SSH host key of ${row.ssh} is not the one this node was paired with: remove the node and add it again if the machine really changed`,
      );
  }

  /** A node's claimed id: never this machine's own, never empty or odd. */
  function checkClaim(hello: NodeHello): void {
    if (hello.nodeId === deps.localId || !/^[A-Za-z0-9._:-]{1,128}$/.test(hello.nodeId))
      throw new GatewayError(
        'invalid_argument',
        `refused: the node claims the id "${hello.nodeId.slice(0, 128)}", which is this machine's own or not a node id`,
      );
  }

  /** The live connection of a listed node, started when there is none (bounded by the hello timeout). */
  function connection(id: string): Promise<NodeConnection> {
    if (closed) return Promise.reject(new NodeOfflineError('the gateway is closing'));
    const l = state(id);
    if (l.conn && !l.conn.closed) return Promise.resolve(l.conn);
    if (l.connecting) return l.connecting;
    const row = q.get(id);
    if (!row) return Promise.reject(notFound(`Unknown node: ${id}`));
    l.retry?.();
    l.retry = undefined;
    const attempt = checkHostKey(row)
      .then(() => launchNode(spec(row), { ...deps.launch, helloTimeoutMs: deps.helloTimeoutMs }))
      .then(({ conn, hello }) => {
        if (closed || !q.get(id)) {
          conn.close('the node was removed');
          throw new NodeOfflineError('the node was removed');
        }
        try {
          checkClaim(hello);
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
        adopt(id, conn, hello);
        logger.info('nodes: node online', { nodeId: id });
        return conn;
      })
      .catch((err: unknown) => {
        const why = err instanceof Error ? err.message : String(err);
        logger.warn('nodes: cannot reach node', { nodeId: id, reason: why });
        wentOffline(id, why);
        throw err instanceof NodeOfflineError ? err : new NodeOfflineError(why);
      })
      .finally(() => {
        l.connecting = undefined;
      });
    l.connecting = attempt;
    return attempt;
  }

  /** A node that cannot be started is unavailable, with the cause in words (launch.ts). */
  function startError<T>(fn: () => T): T {
    const map = (err: unknown): never => {
      if (err instanceof NodeStartError) throw new GatewayError('unavailable', err.message);
      throw err;
    };
    try {
      const r = fn();
      return (r instanceof Promise ? r.catch(map) : r) as T;
    } catch (err) {
      return map(err);
    }
  }

  function checkInput(input: NodeAddInput): NodeSpec {
    if (typeof input !== 'object' || input === null)
      throw new GatewayError('invalid_argument', 'node input is required');
    const hasSsh = input.ssh !== undefined;
    const hasCommand = input.command !== undefined;
    if (hasSsh === hasCommand)
      throw new GatewayError('invalid_argument', 'Give exactly one of ssh (an SSH destination) and command');
    if (hasCommand && input.nodeCommand !== undefined)
      throw new GatewayError('invalid_argument', 'nodeCommand goes with ssh only');
    if (input.name !== undefined && (typeof input.name !== 'string' || input.name.length > 100))
      throw new GatewayError('invalid_argument', 'name must be a string of at most 100 characters');
    return hasSsh
      ? {
          ssh: input.ssh!,
          ...(input.nodeCommand ? { nodeCommand: input.nodeCommand } : {}),
          ...(input.allowContinue ? { allowContinue: true } : {}),
        }
      : { command: input.command! };
  }

  return {
    /** Reaches the node, reads its hello and lists its sessions; only then is it stored. */
    async add(input: NodeAddInput): Promise<NodeInfo> {
      const s = checkInput(input);
      const argv = startError(() => namedCommandLine(s, deps.launch));
      // A command the person named starts a program: they see it and allow it once.
      if (argv)
        await deps.confirm?.(
          {
            kind: 'node',
            title: `Add a node: run this command to reach ${s.ssh ?? 'the node'}`,
            command: { program: argv[0]!, args: argv.slice(1) },
          },
          { remember: `node:${JSON.stringify(argv)}` },
        );
      const { conn, hello } = await startError(() =>
        launchNode(s, { ...deps.launch, helloTimeoutMs: deps.helloTimeoutMs }),
      );
      let hostKey: string | null = null;
      try {
        checkClaim(hello);
        // Reached over SSH, so known_hosts held its key: that key is now part of who it is.
        if (s.ssh) hostKey = await hostKeyOf(s.ssh);
      } catch (err) {
        conn.close('refused');
        throw err instanceof GatewayError ? err : new GatewayError('unavailable', (err as Error).message);
      }
      const existing = q.get(hello.nodeId);
      if (existing) {
        conn.close('already added');
        throw new GatewayError('invalid_argument', `That machine is already a node: ${existing.name}`);
      }
      let sessions: number | null = null;
      try {
        const listed = await conn.request<{ entries?: unknown[] }>('list', {}, deps.helloTimeoutMs);
        sessions = Array.isArray(listed?.entries) ? listed.entries.length : null;
      } catch (err) {
        conn.close('list failed');
        throw new GatewayError(
          'unavailable',
          `The node answered but could not list its sessions: ${(err as Error).message}`,
        );
      }
      if (closed) {
        conn.close('the gateway is closing');
        throw new GatewayError('unavailable', 'the gateway is closing');
      }
      const name = input.name?.trim() || hello.name;
      q.insert({
        id: hello.nodeId,
        name,
        ssh: s.ssh ?? null,
        command: s.command ? JSON.stringify(s.command) : null,
        nodeCommand: s.nodeCommand ? JSON.stringify(s.nodeCommand) : null,
        allowContinue: s.allowContinue ? 1 : 0,
        sessions,
        at: now(),
      });
      q.bindKey(hostKey, hello.nodeId);
      ids = undefined;
      adopt(hello.nodeId, conn, hello);
      deps.emit({ type: 'catalog:changed' });
      logger.info('nodes: node added', { nodeId: hello.nodeId });
      return info(q.get(hello.nodeId)!);
    },
    list(): NodeInfo[] {
      return q.all().map(info);
    },
    get(id: string): NodeInfo | undefined {
      const r = q.get(id);
      return r ? info(r) : undefined;
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
      if (!q.rename(n, now(), id)) throw notFound(`Unknown node: ${id}`);
      changed();
      deps.emit({ type: 'catalog:changed' });
      return info(q.get(id)!);
    },
    /** Forgets the node and its links (its sessions stay); the connection ends. */
    remove(id: string): void {
      if (!q.get(id)) throw notFound(`Unknown node: ${id}`);
      q.transaction(() => {
        deps.removeLinks(id);
        q.remove(id);
      });
      ids = undefined;
      const l = live.get(id);
      live.delete(id);
      l?.retry?.();
      l?.conn?.close('the node was removed');
      changed();
      deps.emit({ type: 'catalog:changed' });
    },
    connection,
    onConnection(listener: (id: string, conn: NodeConnection) => void): void {
      connected.push(listener);
    },
    /** The node's hello from its current or last connection. */
    hello(id: string): NodeHello | undefined {
      return live.get(id)?.hello;
    },
    online(id: string): boolean {
      const c = live.get(id)?.conn;
      return c !== undefined && !c.closed;
    },
    /** A check or list reached the node. */
    checked(id: string, sessions?: number): void {
      const l = state(id);
      const t = (l.lastCheckAt = now());
      if (sessions !== undefined) q.seen(sessions, t, id);
      else if (l.storedCheckAt === undefined || t - l.storedCheckAt >= CHECKED_STORED_MS) q.checked(t, id);
      else return changed();
      l.storedCheckAt = t;
      changed();
    },
    /** The node did not answer in time: drop the connection (it shows offline; the next use reconnects). */
    drop(id: string, reason: string): void {
      live.get(id)?.conn?.drop(reason);
    },
    /** With the gateway's timers: reach every node now, and reconnect by itself when one drops. */
    start(): void {
      timers = true;
      for (const r of q.all()) connection(r.id).catch(() => {});
    },
    close(): void {
      closed = true;
      for (const [id, l] of live) {
        if (l.lastCheckAt !== undefined && l.lastCheckAt !== l.storedCheckAt) {
          try {
            q.checked(l.lastCheckAt, id);
          } catch (err) {
            logger.warn('nodes: cannot store the last check time', { nodeId: id, error: String(err) });
          }
        }
        l.retry?.();
        l.conn?.close('the gateway closed');
      }
    },
  };
}

export type NodesService = ReturnType<typeof createNodes>;
