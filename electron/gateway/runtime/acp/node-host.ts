// An ACP agent on a paired node (issue 30.1): the node checks the folder and finds the program
// there, starts exactly what the person allowed, and relays the agent's stdio as frames of one
// channel; its file and terminal requests are served on the node (confined to the folder by the
// same code as here). The agent's MCP server is the node's relay: its bytes come back through the
// channel to Sightline's own stdio shim, started here with the session's credential, so no
// credential and no open port is needed on the node. The composition root passes the port (the
// nodes layer's agent links).
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { PassThrough, Writable } from 'node:stream';
import { RequestError, type McpServer } from '@agentclientprotocol/sdk';
import type { CommandLine } from '../../trust/consent';
import type { AgentHost, AgentProcess, AgentTerminals, Placement } from './host';
import type { TerminalHooks } from './terminals';

export interface NodeChannelHandlers {
  out(data: Buffer): void;
  err(data: Buffer): void;
  mcp(data: Buffer): void;
  exit(code: number | null, signal: string | null, reason?: string): void;
}

/** What the runtime needs of the nodes layer (agent links). */
export interface NodeAgentPort {
  /** The node's name, or undefined when no such node is paired. */
  name(nodeId: string): string | undefined;
  /** A request to the node about no channel yet (agent.prepare). */
  ask(nodeId: string, op: string, args: Record<string, unknown>): Promise<unknown>;
  start(
    nodeId: string,
    args: Record<string, unknown>,
    graceMs: number,
    handlers: NodeChannelHandlers,
  ): Promise<{ ch: string; pid: number; mcp: unknown }>;
  send(ch: string, type: 'in' | 'mcp', data: Buffer): void;
  request(ch: string, op: string, args: Record<string, unknown>): Promise<unknown>;
  /** How long an agent outlives a dropped link (the person's setting). */
  graceMs(): number;
}

/** A refusal from the node, as the agent hears it (the same JSON-RPC error as locally). */
function asRequestError(err: unknown): never {
  const rpc = (err as { rpc?: unknown }).rpc;
  const message = err instanceof Error ? err.message : String(err);
  throw new RequestError(typeof rpc === 'number' ? rpc : -32603, message);
}

class NodeProcess extends EventEmitter implements AgentProcess {
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  readonly stdin: Writable;
  pid: number | undefined;
  ch = '';
  private shim: ChildProcess | undefined;
  private ended = false;

  constructor(
    private readonly port: NodeAgentPort,
    private readonly mcpOnNode: () => unknown,
  ) {
    super();
    this.stdin = new Writable({
      write: (chunk: Buffer, _enc, done) => {
        this.port.send(this.ch, 'in', chunk);
        done();
      },
    });
  }

  readonly handlers: NodeChannelHandlers = {
    out: (d) => this.stdout.write(d),
    err: (d) => this.stderr.write(d),
    mcp: (d) => this.shim?.stdin?.write(d),
    exit: (code, signal, reason) => {
      if (this.ended) return;
      this.ended = true;
      this.shim?.kill('SIGKILL');
      this.stdout.end();
      this.stderr.end();
      this.emit('exit', code, signal, reason);
    },
  };

  signal(sig: 'SIGTERM' | 'SIGKILL'): void {
    if (!this.ended) this.port.request(this.ch, 'agent.signal', { signal: sig }).catch(() => undefined);
  }

  killNow(): void {
    this.shim?.kill('SIGKILL');
    if (!this.ended) this.port.request(this.ch, 'agent.stop', {}).catch(() => undefined);
  }

  /** Sightline's stdio shim runs here; the agent gets the node's relay in its place. */
  relayMcp(servers: McpServer[]): McpServer[] {
    const given = servers.find((s): s is Extract<McpServer, { command: string }> => 'command' in s);
    const relay = this.mcpOnNode() as { command?: unknown; args?: unknown; env?: unknown } | undefined;
    if (!given || !relay || typeof relay.command !== 'string' || !Array.isArray(relay.args)) return [];
    const env = Object.fromEntries(given.env.map((v) => [v.name, v.value]));
    const shim = spawn(given.command, given.args, {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'ignore'],
      windowsHide: true,
    });
    this.shim = shim;
    shim.stdin!.on('error', () => undefined);
    shim.stdout!.on('data', (d: Buffer) => this.port.send(this.ch, 'mcp', d));
    const relayEnv = typeof relay.env === 'object' && relay.env ? (relay.env as Record<string, string>) : {};
    return [
      {
        name: given.name,
        command: relay.command,
        args: relay.args.map(String),
        env: Object.entries(relayEnv).map(([name, value]) => ({ name, value: String(value) })),
      },
    ];
  }
}

/** The node's terminals over the link; the person's say and the transcript lines stay here. */
function nodeTerminals(
  port: NodeAgentPort,
  proc: NodeProcess,
  root: string,
  hooks: TerminalHooks = {},
): AgentTerminals {
  const call = (op: string, args: Record<string, unknown>) =>
    port.request(proc.ch, 'agent.terminal', { op, ...args }).catch(asRequestError);
  return {
    async create(req) {
      const added = Object.fromEntries((req.env ?? []).map((v) => [v.name, v.value]));
      const command: CommandLine = {
        program: req.command,
        args: req.args ?? [],
        cwd: req.cwd ?? root,
        env: added,
      };
      if (hooks.approve) {
        try {
          await hooks.approve(command);
        } catch (err) {
          throw new RequestError(-32603, err instanceof Error ? err.message : String(err));
        }
      }
      const { terminalId } = (await call('create', { params: req })) as { terminalId: string };
      hooks.started?.(terminalId, command);
      void call('wait', { terminalId }).then(
        (status) => hooks.exited?.(terminalId, command, status as never),
        () => undefined,
      );
      return terminalId;
    },
    output: (terminalId) => call('output', { terminalId }) as never,
    waitForExit: (terminalId) => call('wait', { terminalId }) as never,
    kill: async (terminalId) => void (await call('kill', { terminalId })),
    release: async (terminalId) => void (await call('release', { terminalId })),
    // The node stops an agent's terminals with it.
    killAll: () => undefined,
  };
}

/** A host on the node `nodeId`, for one agent (it holds that agent's channel). */
export function nodeHost(port: NodeAgentPort, nodeId: string): AgentHost {
  let mcp: unknown;
  const proc = new NodeProcess(port, () => mcp);
  return {
    node: port.name(nodeId) ?? nodeId,
    async prepare(profile, folder) {
      const r = (await port.ask(nodeId, 'agent.prepare', {
        cwd: folder,
        command: profile.command,
        env: profile.env,
        ...(profile.cwd ? { profileCwd: profile.cwd } : {}),
      })) as Placement;
      if (typeof r?.root !== 'string' || typeof r.cwd !== 'string' || typeof r.program !== 'string')
        throw new Error('the node answered without a folder and a program');
      return { root: r.root, cwd: r.cwd, program: r.program };
    },
    async spawn(place, args, env) {
      const started = await port.start(
        nodeId,
        { program: place.program, args, env, cwd: place.cwd, root: place.root },
        port.graceMs(),
        proc.handlers,
      );
      proc.ch = started.ch;
      proc.pid = started.pid;
      mcp = started.mcp;
      return proc;
    },
    files: () => ({
      read: async (file, line, limit) =>
        (
          (await port.request(proc.ch, 'agent.read', { path: file, line, limit }).catch(asRequestError)) as {
            content: string;
          }
        ).content,
      write: async (file, content) => {
        await port.request(proc.ch, 'agent.write', { path: file, content }).catch(asRequestError);
      },
    }),
    terminals: (root, _env, hooks) => nodeTerminals(port, proc, root, hooks),
  };
}
