// One live connection to a node: a child process (the node itself, or `ssh` running it on another
// machine) whose stdin/stdout carry the node protocol. Everything the node sends is hostile until
// parsed: a bad frame, a wrong protocol or a malformed hello ends the connection with a clear
// reason, and never throws into the gateway. Each request has its own timeout.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import {
  FrameReader,
  NODE_ID,
  PROTOCOL,
  encodeFrame,
  isObject,
  type ErrorCode,
  type NodeHello,
  type ProviderStatus,
} from './protocol';

/** A request the node answered with an error (not-found, outside roots, …). */
export class NodeRequestError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** An agent's request refused on the node: the JSON-RPC code it hears. */
    readonly rpc?: number,
  ) {
    super(message);
    this.name = 'NodeRequestError';
  }
}

/** The connection is gone or never came up: says nothing about the sessions on the node. */
export class NodeOfflineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NodeOfflineError';
  }
}

/** How the process ended, for the launcher's diagnosis. */
export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last lines the process wrote to stderr (bounded). */
  stderr: string;
  /** Why the gateway dropped it, when it did (bad frame, wrong protocol, timeout). */
  reason?: string;
}

const STDERR_KEPT = 8 * 1024;

function parseHello(f: Record<string, unknown>): NodeHello | string {
  if (f.type === 'error' && typeof f.message === 'string')
    return `the node refused: ${f.message.slice(0, 300)}`;
  if (f.type !== 'hello') return 'the node did not start with a hello';
  if (f.protocol !== PROTOCOL) {
    const theirs = typeof f.protocol === 'number' ? f.protocol : undefined;
    const fix =
      theirs !== undefined && theirs < PROTOCOL
        ? 'the node is older than this Sightline: update the node command to this version, or add the machine by SSH destination alone so Sightline installs its own node file'
        : 'the node is newer than this Sightline: update Sightline';
    return `the node speaks protocol ${theirs ?? '(none)'}; this Sightline speaks protocol ${PROTOCOL} (${fix})`;
  }
  if (typeof f.nodeId !== 'string' || !NODE_ID.test(f.nodeId)) return 'the node sent no valid node id';
  const providers: ProviderStatus[] = (Array.isArray(f.providers) ? f.providers : []).flatMap((p) =>
    isObject(p) && typeof p.id === 'string' && typeof p.label === 'string'
      ? [
          {
            id: p.id.slice(0, 64),
            label: p.label.slice(0, 100),
            root: typeof p.root === 'string' ? p.root.slice(0, 1000) : '',
            available: p.available === true,
            ...(typeof p.reason === 'string' ? { reason: p.reason.slice(0, 500) } : {}),
          },
        ]
      : [],
  );
  return {
    type: 'hello',
    protocol: PROTOCOL,
    nodeId: f.nodeId,
    name: typeof f.name === 'string' && f.name.trim() ? f.name.trim().slice(0, 200) : f.nodeId,
    nodeVersion: typeof f.nodeVersion === 'string' ? f.nodeVersion.slice(0, 40) : '',
    platform: typeof f.platform === 'string' ? f.platform.slice(0, 40) : '',
    providers,
    allowContinue: f.allowContinue === true,
    ...(f.agents === true ? { agents: true } : {}),
    ...(f.pushes === true ? { pushes: true } : {}),
  };
}

export class NodeConnection {
  private readonly pending = new Map<
    number,
    { resolve(v: unknown): void; reject(e: Error): void; timer: NodeJS.Timeout }
  >();
  private nextId = 1;
  private stderr = '';
  private reason: string | undefined;
  private closedWith: ExitInfo | undefined;
  private readonly closeListeners: ((info: ExitInfo) => void)[] = [];
  /** Frames that are not answers: an agent channel's (issue 30.1). */
  private frameListener: ((f: Record<string, unknown>) => void) | undefined;
  /** `changed` frames: the catalog's (issue 31). */
  private pushListener: ((f: Record<string, unknown>) => void) | undefined;
  readonly ready: Promise<NodeHello>;

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    helloTimeoutMs: number,
  ) {
    const reader = new FrameReader({ magic: true });
    let hello: NodeHello | undefined;
    let settleHello: { resolve(h: NodeHello): void; reject(e: Error): void } | undefined;
    this.ready = new Promise<NodeHello>((resolve, reject) => (settleHello = { resolve, reject }));
    // A caller that never awaits `ready` must not see an unhandled rejection.
    this.ready.catch(() => {});
    const helloTimer = setTimeout(
      () => this.drop(`the node did not answer within ${Math.round(helloTimeoutMs / 1000)} s`),
      helloTimeoutMs,
    );

    child.stdout.on('data', (chunk: Buffer) => {
      if (this.closedWith || this.reason) return;
      let frames: Record<string, unknown>[];
      try {
        frames = reader.push(chunk);
      } catch (err) {
        return this.drop(`the node sent a bad frame: ${(err as Error).message}`);
      }
      for (const f of frames) {
        if (!hello) {
          const h = parseHello(f);
          if (typeof h === 'string') return this.drop(h);
          hello = h;
          clearTimeout(helloTimer);
          this.write({ type: 'hello', protocol: PROTOCOL });
          settleHello?.resolve(h);
          continue;
        }
        this.answer(f);
      }
    });
    child.stderr.on('data', (d: Buffer) => {
      this.stderr = (this.stderr + d.toString('utf8')).slice(-STDERR_KEPT);
    });
    child.stdin.on('error', () => {
      // EPIPE after the process died: its exit says why.
    });
    child.on('error', (err) => this.drop(`cannot start: ${err.message}`));
    child.on('close', (code, signal) => {
      clearTimeout(helloTimer);
      const info: ExitInfo = {
        code,
        signal,
        stderr: this.stderr,
        ...(this.reason ? { reason: this.reason } : {}),
      };
      this.closedWith = info;
      const why = new NodeOfflineError(this.reason ?? describeExit(info));
      settleHello?.reject(why);
      for (const [, p] of this.pending) {
        clearTimeout(p.timer);
        p.reject(why);
      }
      this.pending.clear();
      for (const l of this.closeListeners) l(info);
    });
  }

  /** Starts `argv` and waits for nothing: `ready` resolves with the node's hello. */
  static start(argv: readonly string[], opts: { env?: NodeJS.ProcessEnv; helloTimeoutMs: number }) {
    const child = spawn(argv[0]!, argv.slice(1), {
      shell: false,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: opts.env ?? process.env,
      windowsHide: true,
    });
    return new NodeConnection(child, opts.helloTimeoutMs);
  }

  /** Closed, or being closed: no request goes out any more. */
  get closed(): boolean {
    return this.closedWith !== undefined || this.reason !== undefined;
  }

  /** Why it closed (or is closing), for people. */
  closeReason(): string {
    return this.reason ?? (this.closedWith ? describeExit(this.closedWith) : 'open');
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  onClose(listener: (info: ExitInfo) => void): void {
    if (this.closedWith) listener(this.closedWith);
    else this.closeListeners.push(listener);
  }

  request<T = unknown>(op: string, args: Record<string, unknown>, timeoutMs: number): Promise<T> {
    if (this.closedWith || this.reason)
      return Promise.reject(new NodeOfflineError(this.reason ?? describeExit(this.closedWith!)));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new NodeOfflineError(`the node did not answer "${op}" within ${Math.round(timeoutMs / 1000)} s`),
        );
      }, timeoutMs);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      try {
        this.write({ type: 'req', id, op, args });
      } catch (err) {
        clearTimeout(timer);
        this.pending.delete(id);
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  }

  /** Ends the connection (the node exits when its stdin closes; killed if it does not). */
  close(reason = 'closed by the gateway'): void {
    if (this.closedWith) return;
    this.reason ??= reason;
    this.child.stdin.end();
    const kill = setTimeout(() => this.child.kill('SIGKILL'), 2000);
    kill.unref();
    this.child.once('close', () => clearTimeout(kill));
  }

  private write(msg: unknown): void {
    this.child.stdin.write(encodeFrame(msg));
  }

  /** Where the node's channel frames go (one listener: the gateway's agent links). */
  onFrame(listener: (f: Record<string, unknown>) => void): void {
    this.frameListener = listener;
  }

  /** Where the node's `changed` frames go (the catalog's remote checks parse and bound them). */
  onPush(listener: (f: Record<string, unknown>) => void): void {
    this.pushListener = listener;
  }

  /** A frame of an agent channel to the node. */
  send(frame: Record<string, unknown>): void {
    if (!this.closed) this.write(frame);
  }

  private answer(f: Record<string, unknown>): void {
    const id = f.id;
    if (f.type === 'changed' && this.pushListener) return this.pushListener(f);
    if (f.type !== 'res' || typeof id !== 'number') {
      // A node that starts agents: the agent links parse it, and refuse (logged) what is not
      // a frame of theirs; the link keeps serving. Any other node has no business sending it.
      if (this.frameListener) return this.frameListener(f);
      return this.drop('the node sent something that is not an answer');
    }
    const p = this.pending.get(id);
    // An answer after its timeout: dropped.
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    if (f.ok === true) p.resolve(f.result);
    else {
      const e = isObject(f.error) ? f.error : {};
      const code = typeof e.code === 'string' ? (e.code as ErrorCode) : 'failed';
      const message =
        typeof e.message === 'string' ? e.message.slice(0, 1000) : 'the node refused the request';
      p.reject(new NodeRequestError(code, message, typeof e.rpc === 'number' ? e.rpc : undefined));
    }
  }

  /** Drops the connection at once for a reason of ours (hostile output, no answer in time). */
  drop(reason: string): void {
    if (this.reason || this.closedWith) return;
    this.reason = reason;
    this.child.stdout.removeAllListeners('data');
    this.child.stdout.resume();
    this.child.kill('SIGKILL');
  }
}

export function describeExit(info: ExitInfo): string {
  if (info.reason) return info.reason;
  const last = info.stderr.trim().split('\n').slice(-2).join(' ').slice(0, 300);
  const how = info.signal ? `was stopped by ${info.signal}` : `exited with code ${String(info.code)}`;
  return `the node ${how}${last ? `: ${last}` : ''}`;
}
