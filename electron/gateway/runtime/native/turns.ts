// The turn engine: one turn at a time per session; input that arrives during a turn waits for the
// next. A turn drains the session's notice queue (acknowledging cursors), calls the model with the
// transcript, the drained lines as system events and the tools, and loops over tool calls.
// Only the gateway that owns a session runs its turns; every write of a turn is fenced with the
// epoch the turn started at, so a turn stops writing the moment another gateway holds the session.
import { isSubagentKey, parseSessionKey } from '../../../../shared/session-keys';
import { NotOwnerError, type Ownership } from '../../ownership';
import type { Scheduler } from '../../scheduler';
import type { SessionStore } from '../../sessions/store';
import type { StateCore } from '../../state/session-state';
import type { TranscriptStore } from '../../sessions/transcripts';
import type { ToolRegistry } from '../../tools/registry';
import type { AgentConfig, GatewayEvent, Logger, RunInfo, TranscriptMessage } from '../../types';
import type { AgentStore } from '../agents';
import type { SpawnInfo } from '../child-outcome';
import type { RunEnd, RunLifecycle } from '../run-lifecycle';
import { errorKind, toModelMessage } from './model-messages';
import { ModelAbortedError, type ModelProvider } from './providers/types';
import type { LiveOutputs } from '../live-output';
import type { LiveStream } from '../../../../shared/ipc/types';

export const MAX_STEPS = 8;

export type { SpawnInfo };

export type TurnInput =
  | { kind: 'user' }
  | { kind: 'task'; spawn: SpawnInfo }
  | { kind: 'system'; text: string }
  | { kind: 'heartbeat' };

export interface TurnResult {
  run?: RunInfo;
  text?: string;
}

interface Loop {
  busy: boolean;
  inputs: { input: TurnInput; done: (r: TurnResult) => void }[];
  abort?: AbortController;
  run?: RunInfo;
}

export interface TurnEngineDeps {
  now: () => number;
  scheduler: Scheduler;
  logger: Logger;
  emit: (e: GatewayEvent) => void;
  store: SessionStore;
  transcripts: TranscriptStore;
  agents: AgentStore;
  /** Runs start, end and drain the session's notices the same way for every runner. */
  lifecycle: RunLifecycle;
  registry: ToolRegistry;
  state: StateCore;
  providerFor: (agent: AgentConfig) => ModelProvider;
  /** Streams the provider's output while a step runs (live output, issue 17.1). */
  live: Pick<LiveOutputs, 'delta'>;
  afterTurn: (sessionKey: string, agent: AgentConfig) => void;
  ownership: Pick<Ownership, 'owns' | 'epoch' | 'fenced'>;
}

export class TurnEngine {
  private readonly loops = new Map<string, Loop>();
  private active = 0;
  private idleWaiters: (() => void)[] = [];
  private stopped = false;

  constructor(private readonly deps: TurnEngineDeps) {}

  enqueue(sessionKey: string, input: TurnInput): Promise<TurnResult> {
    if (this.stopped) return Promise.resolve({});
    const loop = this.loop(sessionKey);
    return new Promise((done) => {
      loop.inputs.push({ input, done });
      this.schedule(sessionKey, loop);
    });
  }

  status(sessionKey: string): { busy: boolean; queued: number; run?: RunInfo } {
    const loop = this.loops.get(sessionKey);
    return {
      busy: loop?.busy ?? false,
      queued: loop?.inputs.length ?? 0,
      ...(loop?.run ? { run: loop.run } : {}),
    };
  }

  /** Ends the running turn with outcome `cancelled`. False when nothing runs. */
  cancel(sessionKey: string, reason: 'cancelled' | 'timeout' = 'cancelled'): boolean {
    const loop = this.loops.get(sessionKey);
    if (!loop?.busy || !loop.abort || loop.abort.signal.aborted) return false;
    loop.abort.abort(reason);
    return true;
  }

  /** Resolves when no turn runs or waits anywhere. */
  idle(): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  forget(sessionKey: string): void {
    this.cancel(sessionKey);
    const loop = this.loops.get(sessionKey);
    if (loop) for (const i of loop.inputs.splice(0)) i.done({});
  }

  stop(): void {
    this.stopped = true;
    for (const key of this.loops.keys()) this.forget(key);
  }

  private loop(key: string): Loop {
    let loop = this.loops.get(key);
    if (!loop) this.loops.set(key, (loop = { busy: false, inputs: [] }));
    return loop;
  }

  private schedule(key: string, loop: Loop): void {
    if (loop.busy || loop.inputs.length === 0) return;
    loop.busy = true;
    // Created before the turn starts, so a cancel that arrives first still ends this turn.
    loop.abort = new AbortController();
    // The batch is fixed now: input arriving from here on waits for the next turn.
    const batch = loop.inputs.splice(0);
    const upToId = this.deps.transcripts.page(key, { limit: 1 }).messages[0]?.id ?? 0;
    this.active++;
    setImmediate(() => {
      this.runTurn(key, loop, batch, upToId)
        .catch((err) =>
          this.deps.logger.error('runtime: turn crashed', { sessionKey: key, error: String(err) }),
        )
        .finally(() => {
          loop.busy = false;
          loop.abort = undefined;
          loop.run = undefined;
          this.active--;
          if (!this.stopped) this.schedule(key, loop);
          if (this.active === 0) for (const w of this.idleWaiters.splice(0)) w();
        });
    });
  }

  private async runTurn(key: string, loop: Loop, batch: Loop['inputs'], upToId: number): Promise<void> {
    const { deps } = this;
    const finish = (r: TurnResult) =>
      batch.forEach((b) => {
        if (b.input.kind === 'task') b.input.spawn.onStarted?.(); // a turn that never started
        b.done(r);
      });
    if (this.stopped || !deps.store.get(key) || !deps.ownership.owns(key)) return finish({});
    const epoch = deps.ownership.epoch(key);
    const write = <T>(fn: () => T): T => deps.ownership.fenced(key, fn, epoch);
    try {
      await this.turn(key, loop, batch, upToId, write, finish);
    } catch (err) {
      if (!(err instanceof NotOwnerError)) throw err;
      // Another gateway holds the session now: it runs the session; this turn writes nothing more.
      deps.logger.warn('runtime: turn stopped, another gateway runs the session now', { sessionKey: key });
      finish({});
    }
  }

  private async turn(
    key: string,
    loop: Loop,
    batch: Loop['inputs'],
    upToId: number,
    write: <T>(fn: () => T) => T,
    finish: (r: TurnResult) => void,
  ): Promise<void> {
    const { deps } = this;
    const agentId = parseSessionKey(key).agentId ?? 'main';
    const agent = deps.agents.get(agentId) ?? deps.agents.ensureDefault();
    // Drain at the start of the turn: this acknowledges the watcher's cursors.
    const systemEvents = deps.lifecycle.notes(
      key,
      batch.flatMap((b) => (b.input.kind === 'system' ? [b.input.text] : [])),
    );
    const spawn = batch
      .map((b) => b.input)
      .find((i): i is Extract<TurnInput, { kind: 'task' }> => i.kind === 'task')?.spawn;
    const onlyHeartbeat = batch.every((b) => b.input.kind === 'heartbeat');
    if (onlyHeartbeat && systemEvents.length === 0) return finish({}); // nothing to act on

    const run = deps.lifecycle.open(key, spawn, 'running', write);
    loop.run = run;
    const signal = loop.abort!.signal;
    deps.lifecycle.begin(run, write);
    // Armed after the first fenced write: a turn refused there (NotOwnerError) leaves no timer
    // behind to cancel a later run of the session.
    const cancelTimeout = spawn?.timeoutMs
      ? deps.scheduler.after(spawn.timeoutMs, () => this.cancel(key, 'timeout'))
      : undefined;
    spawn?.onStarted?.();

    let text: string | undefined;
    let how: RunEnd = { status: 'idle' };
    try {
      text = await this.think(key, agent, systemEvents, run, signal, upToId, write);
    } catch (err) {
      if (err instanceof NotOwnerError) throw err;
      const reason = signal.aborted ? String(signal.reason) : undefined;
      if (reason === 'cancelled') how = { status: 'cancelled', outcome: 'cancelled' };
      else if (reason === 'timeout')
        how = {
          status: 'failed',
          outcome: 'timeout',
          error: `run exceeded ${Math.round((spawn?.timeoutMs ?? 0) / 1000)} s`,
        };
      else
        how = { status: 'failed', outcome: 'error', error: err instanceof Error ? err.message : String(err) };
      if (!(err instanceof ModelAbortedError) && !signal.aborted) {
        // The error text may quote message content (a provider echoing the prompt): the person
        // sees it on the run; the log gets only its kind.
        deps.logger.warn('runtime: run failed', { sessionKey: key, runId: run.runId, error: errorKind(err) });
      }
    } finally {
      cancelTimeout?.();
    }
    // After close() the database is gone, and a deleted session's history is gone: a turn cut
    // short by either writes nothing more (no run row, no outcome in a log that was deleted).
    if (this.stopped || !deps.store.get(key)) return finish({ run: { ...run, ...how } });
    deps.lifecycle.end(run, how, spawn, text, write);
    deps.afterTurn(key, agent);
    finish({ run, ...(text !== undefined ? { text } : {}) });
  }

  private async think(
    key: string,
    agent: AgentConfig,
    systemEvents: string[],
    run: RunInfo,
    signal: AbortSignal,
    upToId: number,
    write: <T>(fn: () => T) => T,
  ) {
    const { deps } = this;
    const provider = deps.providerFor(agent);
    const session = deps.store.get(key)!;
    const role = isSubagentKey(key)
      ? `Role: worker. You are sub-agent session ${key} of ${session.parentKey ?? 'no parent'}. Do the task you were given and report the result.`
      : agent.systemPrompt;
    const system = systemEvents.length
      ? `${role}\n\nSystem events:\n${systemEvents.map((l) => `- ${l}`).join('\n')}`
      : role;
    const tools = deps.registry
      .list()
      .map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
    // The transcript as it was when the turn was scheduled; later input belongs to the next turn.
    const messages = deps.transcripts
      .all(key)
      .filter((m) => m.id <= upToId)
      .map(toModelMessage);
    // Live output while a step runs (issue 17.1); nothing once the turn is cancelled.
    const live = (stream: LiveStream) => (text: string) => {
      if (!signal.aborted) deps.live.delta(key, run.runId, stream, text);
    };
    const streams = { onDelta: live('text'), onThinking: live('thinking'), onToolCall: live('tool') };
    for (let step = 0; step < MAX_STEPS; step++) {
      if (signal.aborted) throw new ModelAbortedError();
      const res = await provider.complete({ system, messages, tools, signal, ...streams });
      if (signal.aborted) throw new ModelAbortedError();
      run.inputTokens += res.usage.inputTokens;
      run.outputTokens += res.usage.outputTokens;
      const assistant = write(() =>
        deps.transcripts.append(key, {
          role: 'assistant',
          actorType: 'agent',
          actorId: key,
          text: res.text,
          ...(res.toolCalls.length ? { toolCalls: res.toolCalls } : {}),
          inputTokens: res.usage.inputTokens,
          outputTokens: res.usage.outputTokens,
        }),
      );
      this.appended(assistant);
      messages.push(toModelMessage(assistant));
      if (res.toolCalls.length === 0) return res.text;
      for (const call of res.toolCalls) {
        if (signal.aborted) throw new ModelAbortedError();
        const result = await deps.registry.call(
          { caller: key, callerAgentId: agent.id, signal },
          call.name,
          call.arguments,
        );
        const toolMsg = write(() =>
          deps.transcripts.append(key, {
            role: 'tool',
            actorType: 'system',
            text: result.ok ? result.text : `Error: ${result.error}`,
            toolCallId: call.id,
            toolName: call.name,
          }),
        );
        this.appended(toolMsg);
        messages.push(toModelMessage(toolMsg));
      }
    }
    throw new Error(`step limit reached (${MAX_STEPS} model calls in one turn)`);
  }

  private appended(message: TranscriptMessage): void {
    this.deps.emit({ type: 'transcript:appended', message });
  }
}
