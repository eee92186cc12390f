import { spawn, type ChildProcess } from 'node:child_process';
import { RequestError } from '@agentclientprotocol/sdk';
import type {
  CreateTerminalRequest,
  TerminalExitStatus,
  TerminalOutputResponse,
  WaitForTerminalExitResponse,
} from '@agentclientprotocol/sdk';
import { confinePath } from './confine';
import { skipPartialUtf8 } from './stdio';
import { AcpCommandNotFoundError, resolveCommand } from './command';

/** Ceiling on retained output per terminal, whatever the agent asks for. */
const MAX_OUTPUT_BYTES = 1024 * 1024;
const MAX_TERMINALS = 16;

interface Terminal {
  proc: ChildProcess;
  output: Buffer;
  limit: number;
  truncated: boolean;
  exit?: TerminalExitStatus;
  exited: Promise<TerminalExitStatus>;
}

/**
 * The client side of ACP terminals: commands the agent runs through us. Every command starts
 * inside the session working directory and keeps only the tail of its output (cut at a character
 * boundary, as the protocol asks).
 */
export class TerminalManager {
  private readonly terminals = new Map<string, Terminal>();
  private next = 1;

  constructor(
    private readonly realRoot: string,
    private readonly env: Record<string, string>,
  ) {}

  async create(req: CreateTerminalRequest): Promise<string> {
    if (this.terminals.size >= MAX_TERMINALS) {
      throw new RequestError(-32603, `Too many open terminals (limit ${MAX_TERMINALS}); release one first`);
    }
    const cwd = await confinePath(this.realRoot, req.cwd ?? this.realRoot);
    let command: string;
    try {
      command = resolveCommand({ id: '', name: '', command: req.command, args: [], env: this.env }, cwd);
    } catch (err) {
      if (err instanceof AcpCommandNotFoundError) throw new RequestError(-32602, err.message);
      throw err;
    }
    const env: Record<string, string | undefined> = { ...process.env, ...this.env };
    for (const v of req.env ?? []) env[v.name] = v.value;
    const proc = spawn(command, req.args ?? [], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: false,
    });
    const limit = Math.min(MAX_OUTPUT_BYTES, req.outputByteLimit ?? MAX_OUTPUT_BYTES);
    const exited = new Promise<TerminalExitStatus>((resolve) => {
      proc.once('error', (err) => {
        term.output = Buffer.concat([term.output, Buffer.from(`${err.message}\n`)]);
        resolve((term.exit = { exitCode: null, signal: null }));
      });
      proc.once('close', (code, signal) => resolve((term.exit = { exitCode: code, signal })));
    });
    const term: Terminal = { proc, output: Buffer.alloc(0), limit, truncated: false, exited };
    const onData = (chunk: Buffer) => {
      term.output = Buffer.concat([term.output, chunk]);
      if (term.output.length > term.limit) {
        term.output = skipPartialUtf8(term.output.subarray(term.output.length - term.limit));
        term.truncated = true;
      }
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', onData);
    const id = `term-${this.next++}`;
    this.terminals.set(id, term);
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
    const term = this.get(id);
    if (!term.exit) term.proc.kill('SIGKILL');
  }

  release(id: string): void {
    const term = this.terminals.get(id);
    if (!term) return;
    if (!term.exit) term.proc.kill('SIGKILL');
    this.terminals.delete(id);
  }

  /** Synchronous so it can run from a process 'exit' handler. */
  killAll(): void {
    for (const id of [...this.terminals.keys()]) this.release(id);
  }
}
