import {
  DEFAULT_MAX_MESSAGE_BYTES,
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
  RequestError,
  type AuthMethod,
  type ClientConnection,
  type ContentBlock,
} from '@agentclientprotocol/sdk';
import { buildClientApp, type HandlerHost } from './handlers';
import { AcpStartError } from './start-error';
import { localHost, type AgentFiles, type AgentHost, type AgentProcess, type AgentTerminals } from './host';
import { registerAcpChild, unregisterAcpChild, type LiveAcpChild } from './live-children';
import { StartWatch } from './start-watch';
import { inspectedReadable, NdJsonInspector, TailBuffer } from './stdio';
import { Turn, type PromptJob } from './turn';
import type { AcpChildOptions, AcpLogger, AcpPermissionDecision, AcpRunResult } from './types';
import { UpdateMapper } from './updates';
import { parseUsageUpdate, UsageMeter } from './usage';

export { AcpStartError };

const consoleLogger: AcpLogger = { warn: (message, fields) => console.warn(message, fields ?? {}) };
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * One ACP agent process with one session. Prompts run one at a time in arrival order; every
 * way a prompt can end (answer, refusal, protocol error, crash, garbage, timeout, cancel, close)
 * resolves it with an AcpRunResult instead of throwing, so callers never hang on a dead agent.
 */
export class AcpChild implements LiveAcpChild, HandlerHost {
  readonly mapper = new UpdateMapper();
  readonly terminals: AgentTerminals;
  readonly files: AgentFiles;
  readonly logger: AcpLogger;
  sessionId = '';
  /** How the agent says it can be authenticated (its `initialize` answer), for an authRequired. */
  authMethods: AuthMethod[] = [];

  private readonly conn: ClientConnection;
  private readonly stderr: TailBuffer;
  private readonly exited: Promise<void>;
  private hasExited = false;
  /** Set once by the first fatal event; every later prompt reports it. */
  private failure: string | undefined;
  private onFailure: (reason: string) => void = () => undefined;
  private readonly failed = new Promise<string>((resolve) => (this.onFailure = resolve));
  private readonly pending: PromptJob[] = [];
  private turn: Turn | undefined;
  private closing: Promise<void> | undefined;
  /** Progress and fatal stderr lines until session/new is answered. */
  private readonly startWatch: StartWatch;
  /** What the agent reports about its turns: tokens, cost, context (usage.ts). */
  private readonly meter = new UsageMeter();

  private constructor(
    private readonly opts: AcpChildOptions,
    host: AgentHost,
    readonly realRoot: string,
    command: string,
    private readonly proc: AgentProcess,
  ) {
    this.logger = opts.logger ?? consoleLogger;
    this.stderr = new TailBuffer(opts.stderrLimitBytes ?? 64 * 1024);
    this.terminals = host.terminals(realRoot, opts.profile.env, opts.terminals);
    this.files = host.files(realRoot);
    this.startWatch = new StartWatch(opts.onProgress, (line) =>
      this.fail(`the agent reported a fatal error: ${line}`),
    );
    this.startWatch.step('spawning', `${command} ${opts.profile.args.join(' ')}`.trim());
    registerAcpChild(this);
    this.exited = this.watchProcess();
    const stdin = this.proc.stdin!;
    stdin.on('error', () => undefined); // EPIPE after a crash is reported through 'exit' instead
    const output = new WritableStream<Uint8Array>({
      write: (chunk) =>
        new Promise<void>((resolve, reject) => stdin.write(chunk, (err) => (err ? reject(err) : resolve()))),
    });
    const inspector = new NdJsonInspector(
      (line) => this.fail(`malformed protocol message from the agent: ${JSON.stringify(line)}`),
      DEFAULT_MAX_MESSAGE_BYTES,
    );
    const stream = ndJsonStream(output, inspectedReadable(this.proc.stdout!, inspector));
    this.conn = buildClientApp(this).connect(stream);
  }

  /** Spawns the agent, runs initialize (advertising fs + terminal) and session/new. */
  static async start(opts: AcpChildOptions): Promise<AcpChild> {
    const host = opts.host ?? localHost;
    // The folder checked and the program found where the agent runs (this machine or a node).
    const place = await host.prepare(opts.profile, opts.cwd);
    // The person's consent to exactly this command line, before anything runs.
    await opts.beforeSpawn?.({
      program: place.program,
      args: opts.profile.args,
      cwd: place.cwd,
      env: opts.profile.env,
    });
    const proc = await host.spawn(place, opts.profile.args, opts.profile.env);
    const child = new AcpChild(opts, host, place.root, place.program, proc);
    // An agent that exits or fails ends the start at once (child.failed); the budget is only for
    // one that stays silent. Real OpenCode needs 20-30 s for initialize + session/new on a busy
    // two-core machine, so 30 s failed good starts.
    const budget = opts.startTimeoutMs ?? 120_000;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        child.handshake(),
        child.failed.then((reason) => Promise.reject(new Error(reason))),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            // A hung agent often said why on stderr (e.g. refusing to run as root): say it too.
            const last = child.stderr.lastLine();
            const said = last ? ` (stderr: ${last})` : '';
            reject(new Error(`no answer to initialize/session/new within ${budget} ms${said}`));
          }, budget);
        }),
      ]);
    } catch (err) {
      child.startWatch.finish();
      const reason = await child.describeError(err);
      await child.close();
      throw new AcpStartError(reason, child.stderrTail());
    } finally {
      clearTimeout(timer);
    }
    child.startWatch.step('ready', `session ${child.sessionId}`);
    child.startWatch.finish();
    return child;
  }

  private async handshake(): Promise<void> {
    this.startWatch.step('initialize', 'initialize sent (npx and uvx fetch the package first)');
    const init = await this.conn.agent.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
      // auth.terminal: Sightline runs terminal auth methods for the person (a login terminal panel).
      clientCapabilities: {
        fs: { readTextFile: true, writeTextFile: true },
        terminal: true,
        auth: { terminal: true },
      },
      clientInfo: { name: 'sightline', version: '0.1.0' },
    });
    if (init.protocolVersion !== PROTOCOL_VERSION) {
      throw new Error(
        `agent speaks ACP protocol version ${init.protocolVersion}; Sightline speaks ${PROTOCOL_VERSION}`,
      );
    }
    this.authMethods = init.authMethods ?? [];
    // Sightline's MCP server, over HTTP when the agent says it takes it, else its stdio shim; an
    // agent on a node reaches it through the node's relay (no port there).
    const relay = this.proc.relayMcp?.bind(this.proc);
    const http = init.agentCapabilities?.mcpCapabilities?.http === true && !relay;
    const given = this.opts.mcpServers ? await this.opts.mcpServers({ http }) : [];
    const mcpServers = relay ? relay(given) : given;
    const who = init.agentInfo
      ? `${init.agentInfo.title ?? init.agentInfo.name} ${init.agentInfo.version}`
      : 'the agent';
    this.startWatch.step('session/new', `${who} answered initialize; session/new sent`);
    const session = await this.conn.agent.request(methods.agent.session.new, {
      cwd: this.realRoot,
      mcpServers,
    });
    this.sessionId = session.sessionId;
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  stderrTail(): string {
    return this.stderr.text();
  }

  onUpdate(update: Parameters<AcpChildOptions['onUpdate']>[0]): void {
    this.opts.onUpdate(update);
  }

  onUsage(update: unknown): void {
    const report = parseUsageUpdate(update);
    if (report) this.meter.seen(report);
    else this.logger.warn('ACP usage_update with numbers that do not parse; ignored');
  }

  onPermission(request: Parameters<AcpChildOptions['onPermission']>[0]): Promise<AcpPermissionDecision> {
    return this.opts.onPermission(request);
  }

  permissionAbort(): Promise<AcpPermissionDecision> | undefined {
    return this.turn?.permissionAbort;
  }

  /** One prompt turn (one text block or several); queued behind the running one, never rejects. */
  prompt(content: string | string[], opts: { timeoutMs?: number } = {}): Promise<AcpRunResult> {
    const blocks = typeof content === 'string' ? [content] : content;
    return new Promise((resolve) => {
      this.pending.push({ blocks, timeoutMs: opts.timeoutMs, resolve });
      this.pump();
    });
  }

  private pump(): void {
    if (this.turn) return;
    const job = this.pending.shift();
    if (!job) return;
    if (this.failure !== undefined) {
      job.resolve({ outcome: 'error', reason: this.failure });
      this.pump();
      return;
    }
    this.mapper.forgetToolCalls(); // titles are kept per turn only, so a long session does not grow
    let answer: unknown; // the agent's answer to session/prompt, for the tokens it reports
    const metered = {
      ...job,
      resolve: (r: AcpRunResult) => {
        const usage = this.meter.endTurn(answer);
        job.resolve(Object.keys(usage).length ? { ...r, usage } : r);
      },
    };
    const turn = new Turn(metered, this.opts.cancelGraceMs ?? 5_000, (reason) => this.fail(reason));
    this.turn = turn;
    void turn.done.then(() => {
      this.turn = undefined;
      this.pump();
    });
    const prompt: ContentBlock[] = job.blocks.map((text) => ({ type: 'text', text }));
    this.conn.agent.request(methods.agent.session.prompt, { sessionId: this.sessionId, prompt }).then(
      (res) => {
        answer = res;
        turn.stopped(res.stopReason);
      },
      async (err: unknown) => turn.errored(await this.describeError(err), err instanceof RequestError),
    );
  }

  /** ACP `authenticate` with one of the agent's own methods (the person chose it). */
  async authenticate(methodId: string): Promise<void> {
    await this.conn.agent.request(methods.agent.authenticate, { methodId });
  }

  /** session/cancel for the running prompt; prompts still queued resolve 'cancelled' at once. */
  cancel(): void {
    for (const job of this.pending.splice(0))
      job.resolve({ outcome: 'cancelled', reason: 'cancelled before it started' });
    const turn = this.turn;
    if (!turn || !turn.markCancelled()) return;
    this.conn.agent
      .notify(methods.agent.session.cancel, { sessionId: this.sessionId })
      .catch(() => undefined);
  }

  /**
   * A readable reason for a failed request. A dropped connection is usually the process dying, so
   * give the exit a moment to arrive and report that instead of "connection closed".
   */
  private async describeError(err: unknown): Promise<string> {
    if (err instanceof RequestError)
      return `agent returned a protocol error: ${err.message} (code ${err.code})`;
    if (this.failure !== undefined) return this.failure;
    const message = err instanceof Error ? err.message : String(err);
    if (!this.conn.signal.aborted) return message;
    return Promise.race([this.failed, delay(1_000).then(() => `connection to the agent closed: ${message}`)]);
  }

  /** First fatal event wins: it ends the running prompt, poisons later ones, stops the process. */
  private fail(reason: string): void {
    if (this.failure !== undefined) return;
    this.failure = reason;
    this.onFailure(reason);
    this.turn?.finish({ outcome: 'error', reason });
    void this.close();
  }

  private watchProcess(): Promise<void> {
    const stdoutDone = new Promise<void>((resolve) => this.proc.stdout!.once('close', resolve));
    this.proc.stderr!.on('data', (chunk: Buffer) => {
      this.stderr.push(chunk);
      this.startWatch.stderr(chunk);
    });
    return new Promise<void>((resolve) => {
      this.proc.once('error', (err) => {
        // Spawn failures never produce 'exit'.
        if (this.proc.pid === undefined) {
          this.hasExited = true;
          unregisterAcpChild(this);
          resolve();
        }
        this.fail(`could not run the agent: ${err.message}`);
      });
      this.proc.once('exit', (code: number | null, signal: string | null, lost?: string) => {
        this.hasExited = true;
        unregisterAcpChild(this);
        this.terminals.killAll();
        // Whatever the agent started dies with it (a crashed adapter leaves its CLI running).
        this.proc.signal('SIGKILL');
        resolve();
        const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
        const last = this.stderr.lastLine();
        // A node whose link stayed down past its grace: the reason is that, not an exit code.
        const reason = lost ?? `agent process ${how}${last ? ` (stderr: ${last})` : ''}`;
        // Let the last stdout bytes (maybe the final answer) reach the SDK before declaring failure.
        void Promise.race([stdoutDone, delay(200)])
          .then(() => new Promise((r) => setImmediate(r)))
          .then(() => this.fail(reason));
      });
    });
  }

  /** Kills the process (SIGTERM, SIGKILL after the grace) and settles every prompt. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    if (this.failure === undefined) {
      this.failure = 'the ACP child was closed';
      this.onFailure(this.failure);
    }
    const reason = this.failure;
    this.turn?.finish({ outcome: 'error', reason });
    for (const job of this.pending.splice(0)) job.resolve({ outcome: 'error', reason });
    this.terminals.killAll();
    this.conn.close();
    this.proc.stdin?.end();
    if (!this.hasExited && this.proc.pid !== undefined) {
      // The whole tree: SIGTERM first, SIGKILL to what is left after the grace.
      this.proc.signal('SIGTERM');
      const timer = setTimeout(() => this.proc.signal('SIGKILL'), this.opts.killGraceMs ?? 1_500);
      await this.exited;
      clearTimeout(timer);
    }
    unregisterAcpChild(this);
  }

  /** Synchronous last resort from the process 'exit' hook. */
  killNow(): void {
    this.terminals.killAll();
    if (!this.hasExited && this.proc.pid !== undefined) this.proc.killNow();
  }
}
