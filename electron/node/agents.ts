// Agents on a node (issue 30.1): the node starts an ACP agent in a folder on this machine and
// relays its standard input and output to the gateway as frames of one channel (the gateway's
// ACP client speaks to it through them). The agent's file and terminal requests are served here,
// by the same confined code as on the gateway's machine (the folder is the root). Each channel's
// frames are numbered and kept for a replay after a dropped link (replay.ts); while no gateway is
// connected, each agent lives for the grace its gateway gave it, then its whole tree is stopped.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { resolveCommand } from '../gateway/runtime/acp/command';
import { readConfinedText, writeConfinedText } from '../gateway/runtime/acp/confine';
import { GROUPS, signalTree } from '../gateway/runtime/acp/process-tree';
import { TerminalManager } from '../gateway/runtime/acp/terminals';
import { CHANNEL_ID, Inbox, Outbox, type Frame } from '../gateway/nodes/replay';
import { isObject } from '../gateway/nodes/protocol';
import { NodeError } from './errors';

/** Each chunk of an agent's output crosses the link as one frame of at most this many bytes. */
const CHUNK = 256 * 1024;
const MAX_GRACE_MS = 24 * 60 * 60 * 1000;

export interface NodeAgent {
  ch: string;
  /** Proves a later connection is the same gateway's (attach). */
  token: string;
  /** What the agent's MCP relay presents on the MCP socket. */
  mcpToken: string;
  proc: ChildProcess;
  root: string;
  terminals: TerminalManager;
  out: Outbox;
  inbox: Inbox;
  tree: Set<number>;
  exited: boolean;
  graceMs: number;
  grace?: NodeJS.Timeout;
  mcp?: { write(b: Buffer): void; destroy(): void };
}

const bad = (message: string): never => {
  throw new NodeError('bad_request', message);
};
const text = (v: unknown, what: string, max = 4096): string =>
  typeof v === 'string' && v.length > 0 && v.length <= max && !v.includes('\0')
    ? v
    : bad(`${what} must be a non-empty string of at most ${max} characters`);
const words = (v: unknown, what: string): string[] =>
  Array.isArray(v) && v.length <= 256 && v.every((a) => typeof a === 'string' && !a.includes('\0'))
    ? (v as string[])
    : bad(`${what} must be a list of strings`);
function vars(v: unknown): Record<string, string> {
  if (v === undefined) return {};
  if (!isObject(v)) return bad('env must be an object of strings');
  for (const [k, val] of Object.entries(v))
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) || typeof val !== 'string' || val.includes('\0'))
      bad(`env ${JSON.stringify(k.slice(0, 64))} is not a variable of text`);
  return v as Record<string, string>;
}

const graceOf = (v: unknown): number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= MAX_GRACE_MS
    ? v
    : bad(`graceMs must be a whole number of milliseconds from 0 to ${MAX_GRACE_MS}`);

/** The folder on this machine: absolute, existing, a directory; its real path. */
export function checkRoot(cwd: unknown): string {
  const dir = text(cwd, 'cwd');
  if (!path.isAbsolute(dir)) bad(`the folder must be an absolute path: ${dir}`);
  let real: string;
  try {
    real = fs.realpathSync(dir);
  } catch {
    throw new NodeError('not_found', `the folder does not exist on this node: ${dir}`);
  }
  if (!fs.statSync(real).isDirectory()) bad(`not a folder on this node: ${dir}`);
  return real;
}

export interface AgentsOptions {
  /** Sends a frame to the connected gateway (dropped while none is). */
  send(frame: Frame): void;
  /** Where the agent's MCP relay connects, and what runs it (this node file). */
  mcpRelay(): { socket: string; command: string; args: string[] };
  /** The last agent ended while no gateway is connected. */
  idle(): void;
}

/** A request's arguments (parsed by each method). */
type Args = Record<string, unknown>;

export class NodeAgents {
  private readonly agents = new Map<string, NodeAgent>();
  private linked = true;

  constructor(private readonly o: AgentsOptions) {}

  private agent(ch: unknown): NodeAgent {
    const a = this.agents.get(text(ch, 'ch', 64));
    if (!a) throw new NodeError('not_found', `no agent on this node has channel ${String(ch).slice(0, 64)}`);
    return a;
  }

  private emit(a: NodeAgent, f: Frame): void {
    this.o.send(a.out.stamp({ ...f, ch: a.ch }));
  }

  private forget(a: NodeAgent): void {
    clearTimeout(a.grace);
    this.agents.delete(a.ch);
    if (!this.linked && this.agents.size === 0) this.o.idle();
  }

  /** The agent's whole tree: SIGTERM, SIGKILL to what is left after a grace. */
  private stopTree(a: NodeAgent): void {
    a.terminals.killAll();
    a.mcp?.destroy();
    if (a.exited || a.proc.pid === undefined) return;
    const pid = a.proc.pid;
    a.tree = signalTree(pid, 'SIGTERM', a.tree);
    setTimeout(() => signalTree(pid, 'SIGKILL', a.tree), 1500).unref();
  }

  /** The New session dialog's folder check, on this machine: its real path, or why not. */
  folder(args: Args) {
    return { path: checkRoot(args.cwd) };
  }

  /** The person changed the grace: every agent of this node outlives a dropped link that long. */
  grace(args: Args) {
    const ms = graceOf(args.graceMs);
    for (const a of this.agents.values()) a.graceMs = ms;
    return { agents: this.agents.size };
  }

  /** Checks the folder and finds the program here: what the person is asked to allow. */
  prepare(args: Args) {
    const root = checkRoot(args.cwd);
    const cwd = typeof args.profileCwd === 'string' ? checkRoot(path.resolve(root, args.profileCwd)) : root;
    const env = vars(args.env);
    const command = text(args.command, 'command');
    const program = resolveCommand({ id: '', name: '', command, args: [], env }, cwd);
    return { root, cwd, program };
  }

  /** Starts exactly the program prepare found (an absolute path), in the checked folder. */
  start(args: Args) {
    const ch = text(args.ch, 'ch', 64);
    if (!CHANNEL_ID.test(ch) || this.agents.has(ch)) bad('ch must be a new channel id');
    const root = checkRoot(args.root);
    const cwd = checkRoot(args.cwd);
    const env = vars(args.env);
    const program = resolveCommand(
      { id: '', name: '', command: text(args.program, 'program'), args: [], env },
      cwd,
    );
    if (program !== args.program) bad('program must be the absolute path prepare answered');
    const proc = spawn(program, words(args.args, 'args'), {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: GROUPS,
      windowsHide: true,
    });
    const a: NodeAgent = {
      ch,
      token: randomBytes(24).toString('base64url'),
      mcpToken: randomBytes(24).toString('base64url'),
      proc,
      root,
      terminals: new TerminalManager(root, env),
      out: new Outbox(),
      inbox: new Inbox(),
      tree: new Set(),
      exited: false,
      graceMs: graceOf(args.graceMs),
    };
    this.agents.set(ch, a);
    this.relay(a);
    const relay = this.o.mcpRelay();
    return {
      pid: proc.pid ?? 0,
      token: a.token,
      mcp: {
        command: relay.command,
        args: relay.args,
        env: { SIGHTLINE_NODE_MCP: relay.socket, SIGHTLINE_NODE_MCP_TOKEN: a.mcpToken },
      },
    };
  }

  /** The agent's output and end as frames of its channel. */
  private relay(a: NodeAgent): void {
    const { proc } = a;
    proc.stdin!.on('error', () => undefined);
    proc.stdout!.on('data', (b: Buffer) => {
      for (let i = 0; i < b.length; i += CHUNK)
        this.emit(a, { type: 'out', data: b.subarray(i, i + CHUNK).toString('base64') });
    });
    proc.stderr!.on('data', (b: Buffer) =>
      this.emit(a, { type: 'err', data: b.subarray(-CHUNK).toString('base64') }),
    );
    const ended = (code: number | null, signal: NodeJS.Signals | null, error?: string) => {
      if (a.exited) return;
      a.exited = true;
      a.terminals.killAll();
      a.mcp?.destroy();
      // Whatever the agent started dies with it.
      if (proc.pid !== undefined) signalTree(proc.pid, 'SIGKILL', a.tree);
      this.emit(a, { type: 'exit', code, signal, ...(error ? { error } : {}) });
      if (this.linked) this.forget(a);
    };
    proc.once('error', (err) => ended(null, null, `could not run the agent: ${err.message}`));
    proc.once('exit', (code, signal) => {
      // The last output first (the final answer may be in it).
      proc.stdout!.once('close', () => ended(code, signal));
      setTimeout(() => ended(code, signal), 200).unref();
    });
  }

  signal(args: Args) {
    const a = this.agent(args.ch);
    const sig =
      args.signal === 'SIGTERM' || args.signal === 'SIGKILL'
        ? args.signal
        : bad('signal must be SIGTERM or SIGKILL');
    if (!a.exited && a.proc.pid !== undefined) a.tree = signalTree(a.proc.pid, sig, a.tree);
    return {};
  }

  /** The gateway is done with the agent (deleted, or the gateway closes): its tree stops now. */
  stop(args: Args) {
    const a = this.agent(args.ch);
    this.stopTree(a);
    this.forget(a);
    return {};
  }

  async read(args: Args) {
    const a = this.agent(args.ch);
    const line = typeof args.line === 'number' ? args.line : null;
    const limit = typeof args.limit === 'number' ? args.limit : null;
    return { content: await readConfinedText(a.root, text(args.path, 'path'), line, limit) };
  }

  async write(args: Args) {
    const a = this.agent(args.ch);
    if (typeof args.content !== 'string') bad('content must be text');
    await writeConfinedText(a.root, text(args.path, 'path'), args.content as string);
    return {};
  }

  async terminal(args: Args): Promise<unknown> {
    const t = this.agent(args.ch).terminals;
    const id = () => text(args.terminalId, 'terminalId', 64);
    switch (args.op) {
      case 'create': {
        const params = isObject(args.params) ? args.params : bad('params must be an object');
        return { terminalId: await t.create(params as never) };
      }
      case 'output':
        return t.output(id());
      case 'wait':
        return t.waitForExit(id());
      case 'kill':
        return (t.kill(id()), {});
      case 'release':
        return (t.release(id()), {});
      default:
        return bad('op must be create, output, wait, kill or release');
    }
  }

  /** A frame from the gateway for a channel: the agent's input, or its MCP answers. */
  frame(f: Frame): void {
    const a = typeof f.ch === 'string' ? this.agents.get(f.ch) : undefined;
    if (!a || typeof f.data !== 'string' || a.inbox.take(f.seq) !== 'new') return;
    const bytes = Buffer.from(f.data, 'base64');
    if (f.type === 'in') a.proc.stdin!.write(bytes);
    else if (f.type === 'mcp') a.mcp?.write(bytes);
  }

  /** The MCP relay of the agent that holds this token connected. */
  mcpConnected(token: string, sock: { write(b: Buffer): void; destroy(): void }) {
    const a = [...this.agents.values()].find((x) => x.mcpToken === token && !x.exited);
    if (!a) return undefined;
    a.mcp?.destroy();
    a.mcp = sock;
    return (b: Buffer) => this.emit(a, { type: 'mcp', data: b.toString('base64') });
  }

  size(): number {
    return this.agents.size;
  }

  /** No gateway is connected: each agent lives for its grace. */
  unlinked(): void {
    this.linked = false;
    for (const a of this.agents.values()) {
      if (a.exited) continue;
      a.grace = setTimeout(() => {
        this.stopTree(a);
        this.forget(a);
      }, a.graceMs);
    }
    if (this.agents.size === 0) this.o.idle();
  }

  /**
   * A gateway came back with tokens and the last frame it got of each channel: those agents are
   * its again, and what it missed is sent again. Answers which were attached (with the last frame
   * this node got of each: the gateway sends the rest again) and which are gone.
   */
  attach(tokens: Args, seqs: Args) {
    const attached: { ch: string; pid: number; seq: number }[] = [];
    const replays: Frame[] = [];
    const gone: string[] = [];
    for (const [ch, token] of Object.entries(tokens)) {
      const a = this.agents.get(ch);
      if (!a || a.token !== token) continue;
      const again = a.out.since(Number(seqs[ch]) || 0);
      if (!again) {
        gone.push(ch);
        this.stopTree(a);
        this.forget(a);
        continue;
      }
      clearTimeout(a.grace);
      attached.push({ ch, pid: a.proc.pid ?? 0, seq: a.inbox.last });
      replays.push(...again);
      if (a.exited) this.agents.delete(ch);
    }
    if (attached.length > 0) this.linked = true;
    return { attached, gone, replays };
  }

  holds(tokens: Args): boolean {
    return Object.entries(tokens).some(([ch, t]) => this.agents.get(ch)?.token === t);
  }

  /** The node process ends: no agent outlives it. */
  killAll(): void {
    for (const a of this.agents.values()) {
      a.terminals.killAll();
      if (!a.exited && a.proc.pid !== undefined) signalTree(a.proc.pid, 'SIGKILL', a.tree);
    }
  }
}
