import { spawn, type ChildProcess } from 'node:child_process';
import { RequestError } from '@agentclientprotocol/sdk';
import type {
  CreateTerminalRequest,
  TerminalExitStatus,
  TerminalOutputResponse,
  WaitForTerminalExitResponse,
} from '@agentclientprotocol/sdk';
import type { CommandLine } from '../../trust/consent';
import { confinePath } from './confine';
import { skipPartialUtf8 } from './stdio';
import { AcpCommandNotFoundError, resolveCommand } from './command';

/** Ceiling on retained output per terminal, whatever the agent asks for. */
const MAX_OUTPUT_BYTES = 1024 * 1024;
const MAX_TERMINALS = 16;
/** POSIX: each command leads its own process group, so a kill reaches everything it started. */
const GROUPS = process.platform !== 'win32';

/** What the session sees of its agent's terminals, and the person's say before each one runs. */
export interface TerminalHooks {
  /** Before the command runs; throws (e.g. the person declined) to refuse it. */
  approve?(command: CommandLine): Promise<void>;
  /** It started: a visible entry in the session's transcript. */
  started?(id: string, command: CommandLine): void;
  /** It ended (exit code or signal). */
  exited?(id: string, command: CommandLine, status: TerminalExitStatus): void;
}

interface Terminal {
  proc: ChildProcess;
  output: Buffer;
  limit: number;
  truncated: boolean;
  exit?: TerminalExitStatus;
  exited: Promise<TerminalExitStatus>;
  groupKilled: boolean;
}

/**
 * The client side of ACP terminals: commands the agent runs through us. Every command starts
 * inside the session working directory, in a process group of its own that a kill ends whole,
 * and keeps only the tail of its output (cut at a character boundary, as the protocol asks).
 */
export class TerminalManager {
  private readonly terminals = new Map<string, Terminal>();
  private next = 1;

  constructor(
    private readonly realRoot: string,
    private readonly env: Record<string, string>,
    private readonly hooks: TerminalHooks = {},
  ) {}

  async create(req: CreateTerminalRequest): Promise<string> {
    if (this.terminals.size >= MAX_TERMINALS) {
      throw new RequestError(-32603, `Too many open terminals (limit ${MAX_TERMINALS}); release one first`);
    }
    const cwd = await confinePath(this.realRoot, req.cwd ?? this.realRoot);
    let program: string;
    try {
      program = resolveCommand({ id: '', name: '', command: req.command, args: [], env: this.env }, cwd);
    } catch (err) {
      if (err instanceof AcpCommandNotFoundError) throw new RequestError(-32602, err.message);
      throw err;
    }
    const added = Object.fromEntries((req.env ?? []).map((v) => [v.name, v.value]));
    const command: CommandLine = { program, args: req.args ?? [], cwd, env: added };
    if (this.hooks.approve) {
      try {
        await this.hooks.approve(command);
      } catch (err) {
        throw new RequestError(-32603, err instanceof Error ? err.message : String(err));
      }
    }
    const proc = spawn(program, command.args, {
      cwd,
      env: { ...process.env, ...this.env, ...added },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: GROUPS,
    });
    const id = `term-${this.next++}`;
    const limit = Math.min(MAX_OUTPUT_BYTES, req.outputByteLimit ?? MAX_OUTPUT_BYTES);
    const exited = new Promise<TerminalExitStatus>((resolve) => {
      const end = (status: TerminalExitStatus) => {
        if (term.exit) return;
        term.exit = status;
        this.hooks.exited?.(id, command, status);
        resolve(status);
      };
      proc.once('error', (err) => {
        term.output = Buffer.concat([term.output, Buffer.from(`${err.message}\n`)]);
        end({ exitCode: null, signal: null });
      });
      proc.once('close', (code, signal) => end({ exitCode: code, signal }));
    });
    const term: Terminal = {
      proc,
      output: Buffer.alloc(0),
      limit,
      truncated: false,
      exited,
      groupKilled: false,
    };
    const onData = (chunk: Buffer) => {
      term.output = Buffer.concat([term.output, chunk]);
      if (term.output.length > term.limit) {
        term.output = skipPartialUtf8(term.output.subarray(term.output.length - term.limit));
        term.truncated = true;
      }
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', onData);
    this.terminals.set(id, term);
    this.hooks.started?.(id, command);
    return id;
  }

  private get(id: string): Terminal {
    const term = this.terminals.get(id);
    if (!term) throw new RequestError(-32002, `Unknown terminal: ${id}`);
    return term;
  }

  output(id: string): TerminalOutputResponse {
    const term = this.get(id);
    return { output: term.output.toString('utf8'), truncated: term.truncated, exitStatus: term.exit ?? null };
  }

  async waitForExit(id: string): Promise<WaitForTerminalExitResponse> {
    const status = await this.get(id).exited;
    return { exitCode: status.exitCode ?? null, signal: status.signal ?? null };
  }

  kill(id: string): void {
    this.killGroup(this.get(id));
  }

  release(id: string): void {
    const term = this.terminals.get(id);
    if (!term) return;
    this.killGroup(term);
    this.terminals.delete(id);
  }

  /** Synchronous so it can run from a process 'exit' handler. */
  killAll(): void {
    for (const id of [...this.terminals.keys()]) this.release(id);
  }

  /**
   * SIGKILL to the command's whole process group: what it started in the background goes too,
   * also after the command itself has exited. Once per terminal, so a reused pid is never hit.
   */
  private killGroup(term: Terminal): void {
    if (term.groupKilled || term.proc.pid === undefined) return;
    term.groupKilled = true;
    if (GROUPS) {
      try {
        process.kill(-term.proc.pid, 'SIGKILL');
        return;
      } catch {
        // ESRCH: the group is gone already; fall through for the leader itself.
      }
    }
    if (!term.exit) term.proc.kill('SIGKILL');
  }
}
