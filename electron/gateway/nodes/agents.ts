// The gateway's end of agents on nodes (issue 30.1): one channel per agent a node started, its
// frames numbered both ways (replay.ts). A frame for a channel this gateway did not open on that
// node is refused and logged. When the link drops, each channel waits for its grace while the
// node is reached again; then the node is asked to attach the channels (with the token it gave
// at the start) and each side sends again what the other missed. An attach that names another
// process than the one started is refused. Past the grace, the channel ends `link lost`.
import { randomUUID } from 'node:crypto';
import { GatewayError } from '../errors';
import type { Logger } from '../types';
import type { NodeConnection } from './connection';
import { isObject } from './protocol';
import { Inbox, Outbox, type Frame } from './replay';

export const LINK_LOST = 'link lost';
/** How often a node is tried again while channels wait on it. */
const RETRY_MS = 1000;

export interface ChannelHandlers {
  out(data: Buffer): void;
  err(data: Buffer): void;
  mcp(data: Buffer): void;
  /** The agent ended on the node, or the channel is lost (`reason`). */
  exit(code: number | null, signal: string | null, reason?: string): void;
}

interface Channel {
  ch: string;
  nodeId: string;
  token: string;
  pid: number;
  handlers: ChannelHandlers;
  out: Outbox;
  inbox: Inbox;
  lost?: NodeJS.Timeout;
  ended: boolean;
}

export interface AgentLinksDeps {
  logger: Logger;
  /** The node's live connection (reached again when there is none). */
  connection(nodeId: string): Promise<NodeConnection>;
  /** A paired node's name; undefined when there is no such node. */
  name(nodeId: string): string | undefined;
  /** A link that will not come back (the gateway is closing). */
  closing(): boolean;
  /** How long an agent outlives a dropped link (the person's setting; default 2 minutes). */
  graceMs(): number;
}

/** The node's live connection, when its node file starts agents. */
async function agentConnection(deps: AgentLinksDeps, nodeId: string): Promise<NodeConnection> {
  const conn = await deps.connection(nodeId);
  const hello = await conn.ready;
  if (hello.agents !== true)
    throw new GatewayError(
      'unavailable',
      `The node "${deps.name(nodeId) ?? nodeId}" runs a Sightline node that cannot start agents: update its node command to this version, or pair it by SSH destination alone so Sightline installs its own node file`,
    );
  return conn;
}

const CHANNEL_FRAMES = new Set(['out', 'err', 'exit', 'mcp']);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Why a frame from the node is not one of an agent channel's (undefined: it is well formed). */
function malformed(f: Frame): string | undefined {
  if (!CHANNEL_FRAMES.has(f.type as string))
    return f.type === 'res' ? 'an answer without a numeric id' : 'not a frame type of an agent channel';
  if (typeof f.ch !== 'string') return 'no channel id';
  if (typeof f.seq !== 'number' || !Number.isSafeInteger(f.seq) || f.seq < 1)
    return 'seq must be a positive whole number';
  if (f.type === 'exit') {
    if (f.code !== null && f.code !== undefined && !Number.isSafeInteger(f.code))
      return 'code must be a number';
    if (f.signal !== null && f.signal !== undefined && typeof f.signal !== 'string')
      return 'signal must be a name';
    if (f.error !== undefined && typeof f.error !== 'string') return 'error must be text';
    return undefined;
  }
  if (typeof f.data !== 'string' || f.data.length % 4 !== 0 || !BASE64.test(f.data))
    return 'data must be base64 text';
  return undefined;
}

export class AgentLinks {
  private readonly channels = new Map<string, Channel>();
  private readonly conns = new Map<string, NodeConnection>();
  private readonly retrying = new Map<string, NodeJS.Timeout>();

  constructor(private readonly deps: AgentLinksDeps) {}

  private end(c: Channel, code: number | null, signal: string | null, reason?: string): void {
    if (c.ended) return;
    c.ended = true;
    clearTimeout(c.lost);
    this.channels.delete(c.ch);
    c.handlers.exit(code, signal, reason);
  }

  private frame(nodeId: string, f: Frame): void {
    const bad = malformed(f);
    if (bad) {
      // Refused before its number is taken: the channel goes on as if it never came.
      this.deps.logger.warn('nodes: refused a malformed frame from the node', {
        nodeId,
        ch: String(f.ch).slice(0, 64),
        type: String(f.type).slice(0, 16),
        why: bad,
      });
      return;
    }
    const c = typeof f.ch === 'string' ? this.channels.get(f.ch) : undefined;
    if (!c || c.nodeId !== nodeId) {
      this.deps.logger.warn('nodes: refused a frame for an agent this node does not run', {
        nodeId,
        ch: String(f.ch).slice(0, 64),
        type: String(f.type).slice(0, 16),
      });
      return;
    }
    const taken = c.inbox.take(f.seq);
    if (taken === 'twin') return;
    if (taken === 'gap') {
      this.deps.logger.warn('nodes: frames of an agent were lost', { nodeId, ch: c.ch });
      return this.end(c, null, null, `${LINK_LOST} (frames were lost)`);
    }
    const data = typeof f.data === 'string' ? Buffer.from(f.data, 'base64') : Buffer.alloc(0);
    if (f.type === 'out') c.handlers.out(data);
    else if (f.type === 'err') c.handlers.err(data);
    else if (f.type === 'mcp') c.handlers.mcp(data);
    else if (f.type === 'exit') {
      const reason = typeof f.error === 'string' ? f.error.slice(0, 500) : undefined;
      this.end(
        c,
        typeof f.code === 'number' ? f.code : null,
        typeof f.signal === 'string' ? f.signal : null,
        reason,
      );
    }
  }

  /** The link to a node dropped: its channels wait for their grace, and the node is tried again. */
  private dropped(nodeId: string): void {
    const waiting = [...this.channels.values()].filter((c) => c.nodeId === nodeId && !c.ended);
    if (waiting.length === 0) return;
    this.deps.logger.warn('nodes: link lost; agents wait for it', { nodeId, agents: waiting.length });
    for (const c of waiting) {
      // The person's grace as it is now (Settings → Nodes), as the node reads it too.
      c.lost ??= setTimeout(() => this.end(c, null, null, LINK_LOST), this.deps.graceMs());
      if (this.deps.closing()) this.end(c, null, null, LINK_LOST);
    }
    this.retry(nodeId);
  }

  private retry(nodeId: string): void {
    if (this.retrying.has(nodeId) || this.deps.closing()) return;
    this.retrying.set(
      nodeId,
      setTimeout(() => {
        this.retrying.delete(nodeId);
        if (![...this.channels.values()].some((c) => c.nodeId === nodeId && c.lost)) return;
        this.deps.connection(nodeId).catch(() => this.retry(nodeId));
      }, RETRY_MS),
    );
  }

  /** A new connection to a node: the channels waiting on it are attached again. */
  private async attach(nodeId: string, conn: NodeConnection): Promise<void> {
    const waiting = [...this.channels.values()].filter((c) => c.nodeId === nodeId && c.lost);
    if (waiting.length === 0) return;
    let r: unknown;
    try {
      r = await conn.request(
        'agent.attach',
        {
          tokens: Object.fromEntries(waiting.map((c) => [c.ch, c.token])),
          seqs: Object.fromEntries(waiting.map((c) => [c.ch, c.inbox.last])),
        },
        20_000,
      );
    } catch (err) {
      this.deps.logger.warn('nodes: cannot attach agents again', { nodeId, error: String(err) });
      return;
    }
    const attached = isObject(r) && Array.isArray(r.attached) ? r.attached : [];
    for (const c of waiting) {
      const a = attached.find((x): x is Frame => isObject(x) && x.ch === c.ch);
      if (!a) {
        this.end(c, null, null, LINK_LOST);
        continue;
      }
      if (a.pid !== c.pid) {
        this.deps.logger.warn('nodes: refused an attach that names another process', {
          nodeId,
          ch: c.ch,
          started: c.pid,
          claimed: String(a.pid).slice(0, 20),
        });
        this.end(c, null, null, `${LINK_LOST} (the node answered for another process)`);
        continue;
      }
      clearTimeout(c.lost);
      c.lost = undefined;
      const again = c.out.since(typeof a.seq === 'number' ? a.seq : 0);
      if (!again) this.end(c, null, null, `${LINK_LOST} (input was lost)`);
      else for (const f of again) conn.send(f);
    }
    this.deps.logger.info('nodes: agents attached again', { nodeId, agents: attached.length });
  }

  /** Every connection of every node: its channel frames come here. */
  connected(nodeId: string, conn: NodeConnection): void {
    this.conns.set(nodeId, conn);
    conn.onFrame((f) => this.frame(nodeId, f));
    conn.onClose(() => {
      if (this.conns.get(nodeId) === conn) this.conns.delete(nodeId);
      this.dropped(nodeId);
    });
    void this.attach(nodeId, conn);
  }

  /** Starts the agent on the node (`agent.start`) and opens its channel. */
  async start(
    nodeId: string,
    args: Record<string, unknown>,
    graceMs: number,
    handlers: ChannelHandlers,
  ): Promise<{ ch: string; pid: number; mcp: unknown }> {
    const conn = await agentConnection(this.deps, nodeId);
    const ch = randomUUID();
    const c: Channel = {
      ch,
      nodeId,
      token: '',
      pid: 0,
      handlers,
      out: new Outbox(),
      inbox: new Inbox(),
      ended: false,
    };
    // Open before the answer: the agent may speak at once.
    this.channels.set(ch, c);
    let r: unknown;
    try {
      r = await conn.request('agent.start', { ...args, ch, graceMs }, 30_000);
    } catch (err) {
      this.channels.delete(ch);
      throw err;
    }
    if (
      !isObject(r) ||
      typeof r.token !== 'string' ||
      !Number.isSafeInteger(r.pid) ||
      (r.pid as number) <= 0
    ) {
      this.channels.delete(ch);
      this.deps.logger.warn('nodes: refused a start answer without a process', { nodeId, ch });
      conn.request('agent.stop', { ch }, 5_000).catch(() => undefined);
      throw new Error('the node answered the start without a process: refused');
    }
    c.token = r.token;
    c.pid = r.pid as number;
    return { ch, pid: c.pid, mcp: r.mcp };
  }

  /** Bytes to the agent's input or its MCP relay, numbered; kept for a replay while the link is down. */
  send(ch: string, type: 'in' | 'mcp', data: Buffer): void {
    const c = this.channels.get(ch);
    if (!c) return;
    const f = c.out.stamp({ type, ch, data: data.toString('base64') });
    if (!c.lost) this.conns.get(c.nodeId)?.send(f);
  }

  /** A request about a channel's agent (signal, files, terminals) to its node. */
  async request(ch: string, op: string, args: Record<string, unknown>, timeoutMs = 30_000): Promise<unknown> {
    const c = this.channels.get(ch);
    if (!c) throw new Error('the agent on the node has ended');
    const conn = this.conns.get(c.nodeId);
    if (!conn || c.lost) throw new Error(`the link to the node is down (${LINK_LOST})`);
    return conn.request(op, { ...args, ch }, timeoutMs);
  }

  name(nodeId: string): string | undefined {
    return this.deps.name(nodeId);
  }

  graceMs(): number {
    return this.deps.graceMs();
  }

  /**
   * The person changed the grace: each connected node that runs agents of this gateway hears it
   * now, so a link that drops later is waited on that long on both ends.
   */
  graceChanged(): void {
    const graceMs = this.deps.graceMs();
    for (const nodeId of new Set([...this.channels.values()].map((c) => c.nodeId))) {
      const conn = this.conns.get(nodeId);
      conn?.request('agent.grace', { graceMs }, 10_000).then(
        () => this.deps.logger.info('nodes: the node took the new grace', { nodeId, graceMs }),
        (err: unknown) =>
          this.deps.logger.warn('nodes: the node did not take the new grace', { nodeId, error: String(err) }),
      );
    }
  }

  /** A folder on the node, checked there (the New session dialog): its real path. */
  async checkFolder(nodeId: string, folder: string): Promise<string> {
    const r = await this.ask(nodeId, 'agent.folder', { cwd: folder });
    if (!isObject(r) || typeof r.path !== 'string')
      throw new Error('the node answered the folder check without a path');
    return r.path;
  }

  /** A request about no channel yet: where an agent would run (agent.prepare). */
  async ask(nodeId: string, op: string, args: Record<string, unknown>): Promise<unknown> {
    return (await agentConnection(this.deps, nodeId)).request(op, args, 30_000);
  }

  /** Channels of a node (tests, status). */
  count(nodeId?: string): number {
    return [...this.channels.values()].filter((c) => !nodeId || c.nodeId === nodeId).length;
  }

  /** The gateway closes: every channel ends (the node stops the agents when its link ends). */
  close(): void {
    for (const t of this.retrying.values()) clearTimeout(t);
    for (const c of [...this.channels.values()]) this.end(c, null, null, 'the gateway closed');
  }
}
