// Where an ACP agent runs (issue 30.1). The ACP client (AcpChild: prompts, updates, permissions,
// cancel, crash) is one; the machine under it is a host: this one (here), or a paired node
// (node-host.ts), which starts the agent there, relays its stdio and serves its file and terminal
// requests there. A host checks the folder and finds the program (what the person is asked to
// allow), starts exactly that, and gives the agent's files and terminals confined to the folder.
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type {
  CreateTerminalRequest,
  McpServer,
  TerminalOutputResponse,
  WaitForTerminalExitResponse,
} from '@agentclientprotocol/sdk';
import type { AcpProfile } from '../../../../shared/ipc/types';
import { resolveCommand } from './command';
import { readConfinedText, writeConfinedText } from './confine';
import { GROUPS, signalTree } from './process-tree';
import { TerminalManager, type TerminalHooks } from './terminals';

/** The agent's process, wherever it runs. Emits 'exit' (code, signal, reason?) and 'error'. */
export interface AgentProcess extends EventEmitter {
  readonly pid: number | undefined;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Signals the agent's whole process tree. */
  signal(sig: 'SIGTERM' | 'SIGKILL'): void;
  /** Synchronous last resort (the gateway's process is exiting). */
  killNow(): void;
  /** The MCP servers as the agent there reaches them (a node relays them); absent: as given. */
  relayMcp?(servers: McpServer[]): McpServer[];
}

/** The agent's text files, confined to the session folder. */
export interface AgentFiles {
  read(file: string, line?: number | null, limit?: number | null): Promise<string>;
  write(file: string, content: string): Promise<void>;
}

/** The agent's terminals (TerminalManager here; the node's over the link). */
export interface AgentTerminals {
  create(req: CreateTerminalRequest): Promise<string>;
  output(id: string): TerminalOutputResponse | Promise<TerminalOutputResponse>;
  waitForExit(id: string): Promise<WaitForTerminalExitResponse>;
  kill(id: string): void | Promise<void>;
  release(id: string): void | Promise<void>;
  killAll(): void;
}

export interface Placement {
  /** The folder's real path: the confinement root and the session's cwd. */
  root: string;
  /** Where the process starts (the profile's cwd under the root, else the root). */
  cwd: string;
  /** The program, as an absolute path. */
  program: string;
}

export interface AgentHost {
  /** For people: the node's name, or undefined for this machine. */
  readonly node?: string;
  prepare(profile: AcpProfile, folder: string): Promise<Placement>;
  spawn(place: Placement, args: string[], env: Record<string, string>): Promise<AgentProcess>;
  files(root: string): AgentFiles;
  terminals(root: string, env: Record<string, string>, hooks?: TerminalHooks): AgentTerminals;
}

class LocalProcess extends EventEmitter implements AgentProcess {
  /** The agent's descendants seen when it was last signalled (they may be re-parented since). */
  private tree = new Set<number>();
  constructor(private readonly proc: ChildProcess) {
    super();
    proc.once('exit', (code, signal) => this.emit('exit', code, signal));
    proc.once('error', (err) => this.emit('error', err));
  }
  get pid() {
    return this.proc.pid;
  }
  get stdin() {
    return this.proc.stdin!;
  }
  get stdout() {
    return this.proc.stdout!;
  }
  get stderr() {
    return this.proc.stderr!;
  }
  signal(sig: 'SIGTERM' | 'SIGKILL'): void {
    if (this.proc.pid !== undefined) this.tree = signalTree(this.proc.pid, sig, this.tree);
  }
  killNow(): void {
    this.signal('SIGKILL');
  }
}

/** This machine. */
export const localHost: AgentHost = {
  async prepare(profile, folder) {
    const root = await realpath(folder).catch(() => {
      throw new Error(`ACP working directory does not exist: ${folder}`);
    });
    if (!(await stat(root)).isDirectory())
      throw new Error(`ACP working directory is not a directory: ${folder}`);
    const cwd = profile.cwd ? path.resolve(root, profile.cwd) : root;
    return { root, cwd, program: resolveCommand(profile, cwd) };
  },
  async spawn(place, args, env) {
    const proc = spawn(place.program, args, {
      cwd: place.cwd,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
      // A process group of its own: stopping the agent stops everything it started (process-tree.ts).
      detached: GROUPS,
      windowsHide: true,
    });
    return new LocalProcess(proc);
  },
  files: (root) => ({
    read: (file, line, limit) => readConfinedText(root, file, line, limit),
    write: (file, content) => writeConfinedText(root, file, content),
  }),
  terminals: (root, env, hooks) => new TerminalManager(root, env, hooks),
};
