// ACP child sessions: external coding agents run as supervised children. Each child session owns
// one agent process (started on first use), its prompts run one at a time, its updates stream
// into the transcript, and permission questions wait for the person alone. The session itself
// (row, `child_spawned`, first message, run) is made by the spawn service; this module keeps
// what lives in memory. Each prompt is a turn: it drains the session's notice queue (the same
// drain as a native turn, so the same acknowledge and reopen rules) once the agent is up, and the
// drained lines go ahead of the prompt as a system note. The agent gets Sightline's MCP server
// with a credential of its own session, so it can use the session tools as itself.
// Over 300 lines on purpose: one child's life (start, prompt chain, cancel, forget) shares the
// `live` map and its bookkeeping; split, each half would reach into the other's state.
import fs from 'node:fs';
import path from 'node:path';
import type { AuthMethod, McpServer, TerminalExitStatus } from '@agentclientprotocol/sdk';
import type { Reach } from '../../../../shared/ipc/reach';
import { parseSessionKey } from '../../../../shared/session-keys';
import { GatewayError, invalidArgument, notFound } from '../../errors';
import type { TranscriptStore, NewMessage } from '../../sessions/transcripts';
import { describeCommand, type CommandLine, type Consent } from '../../trust/consent';
import type { GatewayEvent, Logger, RunInfo, ToolCallRecord } from '../../types';
import type { SpawnInfo } from '../child-outcome';
import { systemNote } from '../system-note';
import type { AskToSend } from '../ask-to-send';
import type { Permissions } from '../permissions';
import type { RunLifecycle } from '../run-lifecycle';
import type { ChildRunner } from '../runner';
import type { AcpChild } from './child';
import { AcpCommandNotFoundError, resolveCommand } from './command';
import { DiffCollector } from './diffs';
import { nodeHost, type NodeAgentPort } from './node-host';
import { closeAllAcpChildren } from './live-children';
import type { StoredAcpProfile } from './profile-store';
import type { AcpProfiles } from './profiles';
import type { AcpRunResult, AcpUpdate } from './types';
import type { LiveOutputs } from '../live-output';
import type { LiveStream } from '../../../../shared/ipc/types';

/** The transcript line of an agent's terminal command: what ran, where, and how it ended. */
function terminalText(root: string, c: CommandLine, end?: TerminalExitStatus | 'declined'): string {
  const where = c.cwd && c.cwd !== root ? ` (in ${c.cwd})` : '';
  const env = Object.keys(c.env ?? {});
  const head = `$ ${describeCommand(c)}${where}${env.length ? ` [env: ${env.join(', ')}]` : ''}`;
  if (end === undefined) return head;
  if (end === 'declined') return `${head} → declined by the person`;
  if (end.signal) return `${head} → killed by ${end.signal}`;
  return `${head} → ${end.exitCode === null ? 'could not run' : `exit code ${end.exitCode}`}`;
}

/** Sightline's MCP server for a child's agent: issued when the agent starts, released when it ends. */
export interface AcpMcpHooks {
  /** A credential of the session's own, valid at once (its session may not be committed yet). */
  servers(sessionKey: string, caps: { http: boolean }, reach: Reach): Promise<McpServer[]>;
  release(sessionKey: string): void;
}

interface Live {
  profile: StoredAcpProfile;
  mcp?: AcpMcpHooks;
  cwd: string;
  /** A paired node's id: the agent runs there, `cwd` is a folder on that machine (issue 30.1). */
  node?: string;
  child?: AcpChild;
  chain: Promise<unknown>;
  inFlight: number;
  buffer: string;
  /** A cancel that arrived while the agent was still starting. */
  cancelRequested: boolean;
  /** The run of the prompt in flight (its output streams under this id). */
  run?: RunInfo;
  /** Runs queued behind it. */
  queue: RunInfo[];
  diffs: DiffCollector;
}

export interface AcpSessionsDeps {
  now: () => number;
  logger: Logger;
  emit: (e: GatewayEvent) => void;
  transcripts: TranscriptStore;
  /** Runs start, end and drain the session's notices the same way for every runner. */
  lifecycle: RunLifecycle;
  profiles: AcpProfiles;
  permissions: Permissions;
  consent: Consent;
  /** Where children without a configured working directory get one of their own. */
  workRoot: string;
  /** Streams the agent's output while a prompt runs (live output, issue 17.1). */
  live: Pick<LiveOutputs, 'delta'>;
  /** Sightline's MCP server for the agents. */
  mcp?: AcpMcpHooks;
  /** The person's yes for an agent's message into a session it did not spawn (issue 29.3). */
  askToSend: AskToSend;
  /** The session that spawned `key`, if any. */
  parentOf: (key: string) => string | undefined;
  /** Paired nodes that start agents (issue 30.1); absent: agents run on this machine only. */
  nodes?: NodeAgentPort;
}

export type AcpSessions = ReturnType<typeof createAcpSessions>;

const newLive = (profile: StoredAcpProfile, cwd: string, mcp?: AcpMcpHooks, node?: string): Live => ({
  profile,
  ...(mcp ? { mcp } : {}),
  cwd,
  ...(node !== undefined ? { node } : {}),
  chain: Promise.resolve(),
  inFlight: 0,
  queue: [],
  buffer: '',
  cancelRequested: false,
  diffs: new DiffCollector(cwd),
});

export function createAcpSessions(deps: AcpSessionsDeps) {
  const { transcripts, lifecycle, emit } = deps;
  const live = new Map<string, Live>();
  /** The `authMethods` each session's last agent offered (see the auth path below). */
  const authSeen = new Map<string, AuthMethod[]>();
  // After close() the database is gone: late callbacks from agent processes touch nothing.
  let closed = false;
  // A child forgotten (its session reset or deleted) may still stream: that writes nothing.
  const current = (key: string, l: Live) => !closed && live.get(key) === l;

  const append = (key: string, l: Live, m: NewMessage) => {
    if (current(key, l)) emit({ type: 'transcript:appended', message: transcripts.append(key, m) });
  };

  /** The agent process is gone (or replaced): so is its MCP credential. */
  const dropChild = (key: string, l: Live) => {
    // Kept for the auth path: an agent that answered authRequired is stopped like any failed one.
    if (l.child?.authMethods.length) authSeen.set(key, l.child.authMethods);
    void l.child?.close();
    l.child = undefined;
    l.mcp?.release(key);
  };

  const flush = (key: string, l: Live) => {
    if (!l.buffer.trim()) return undefined;
    const text = l.buffer;
    l.buffer = '';
    append(key, l, { role: 'assistant', actorType: 'agent', actorId: key, text });
    return text;
  };

  const onUpdate = (key: string, l: Live, u: AcpUpdate) => {
    const stream = (kind: LiveStream, text: string) => {
      if (l.run && current(key, l)) deps.live.delta(key, l.run.runId, kind, text);
    };
    if (u.kind === 'message') {
      l.buffer += u.text;
      stream('text', u.text);
      return;
    }
    if (u.kind === 'thought') return stream('thinking', u.text);
    flush(key, l);
    if (u.kind === 'tool_call') stream('tool', u.title);
    if (u.kind === 'plan') {
      append(key, l, {
        role: 'assistant',
        actorType: 'agent',
        actorId: key,
        text: `Plan:\n${u.entries.map((e) => `- [${e.status}] ${e.content}`).join('\n')}`,
      });
    } else {
      l.diffs.add(u.toolCallId, u.diffs);
      if (u.kind !== 'tool_call' && u.status !== 'completed' && u.status !== 'failed') return;
      const diffs = l.diffs.take(u.toolCallId);
      append(key, l, {
        role: 'tool',
        actorType: 'agent',
        toolName: 'acp',
        toolCallId: u.toolCallId,
        text: `${u.title} — ${u.status}`,
        ...(diffs ? { diffs } : {}),
      });
    }
  };

  const ensureChild = async (key: string, l: Live): Promise<AcpChild> => {
    if (l.child) return l.child;
    // On a node the folder is the node's to check (agent.prepare); here one of its own is made.
    const host = l.node !== undefined ? nodeHost(deps.nodes!, l.node) : undefined;
    if (!host) fs.mkdirSync(l.cwd, { recursive: true });
    const root = host ? l.cwd : fs.realpathSync(l.cwd);
    const note = (id: string, text: string) => {
      flush(key, l);
      append(key, l, { role: 'tool', actorType: 'agent', toolName: 'terminal', toolCallId: id, text });
    };
    const mcp = l.mcp;
    // The ACP SDK loads with the first agent (issue 31.3: the gateway starts without it).
    const { AcpChild } = await import('./child');
    l.child = await AcpChild.start({
      profile: l.profile,
      cwd: l.cwd,
      ...(mcp ? { mcpServers: (caps: { http: boolean }) => mcp.servers(key, caps, l.profile.reach) } : {}),
      logger: { warn: (m, f) => deps.logger.warn(`acp: ${m}`, { sessionKey: key, ...(f as object) }) },
      onUpdate: (u) => onUpdate(key, l, u),
      beforeSpawn: (command) =>
        deps.profiles.confirmStart(
          l.profile,
          command,
          key,
          host?.node !== undefined ? { id: l.node!, name: host.node } : undefined,
        ),
      ...(host ? { host } : {}),
      terminals: {
        ...(l.profile.askTerminal
          ? {
              approve: (command: CommandLine) =>
                deps.consent
                  .confirm({
                    kind: 'terminal',
                    title: `The agent of ${key} wants to run a terminal command`,
                    command,
                    sessionKey: key,
                  })
                  .catch((err: unknown) => {
                    note('terminal', terminalText(root, command, 'declined'));
                    throw err;
                  }),
            }
          : {}),
        started: (id, command) => note(id, terminalText(root, command)),
        exited: (id, command, status) => note(id, terminalText(root, command, status)),
      },
      onPermission: async (req) => {
        const option = await deps.permissions.ask(
          { id: req.id, sessionKey: key, title: req.title, options: req.options },
          (_option, decision) => {
            flush(key, l);
            append(key, l, {
              role: 'system',
              actorType: 'human',
              actorId: 'local-user',
              text: `Permission "${req.title}": ${decision}`,
            });
          },
        );
        return option ? { outcome: 'selected', optionId: option.optionId } : { outcome: 'cancelled' };
      },
    });
    return l.child;
  };

  /** One turn: `text` (absent for a turn of Sightline's own lines only) after any system lines. */
  const runPrompt = (key: string, text: string | undefined, spawn?: SpawnInfo, system: string[] = []) => {
    const l = live.get(key);
    if (!l) return;
    // A spawned run was created with its session; a later prompt starts a run of its own.
    const run = lifecycle.open(key, spawn, 'queued');
    l.inFlight++;
    l.queue.push(run);
    l.chain = l.chain.then(async () => {
      l.queue.shift();
      if (!current(key, l)) return spawn?.onStarted?.();
      l.run = run;
      lifecycle.begin(run);
      let result: AcpRunResult;
      try {
        const child = await ensureChild(key, l);
        // Deleted or reset while its agent was starting: that agent (and its credential) goes now.
        if (!current(key, l)) return dropChild(key, l);
        // The turn starts now, with the agent there to hear it: a turn that could not start
        // drained nothing, so its notice stays pending and comes with the next one.
        const lines = lifecycle.notes(key, system);
        const note = lines.length ? systemNote(lines) : undefined;
        if (note) append(key, l, { role: 'system', actorType: 'system', text: note });
        const blocks = [...(note ? [note] : []), ...(text !== undefined ? [text] : [])];
        const prompt = child.prompt(blocks, spawn?.timeoutMs ? { timeoutMs: spawn.timeoutMs } : {});
        spawn?.onStarted?.();
        if (l.cancelRequested) child.cancel();
        result = await prompt;
      } catch (err) {
        result = { outcome: 'error', reason: err instanceof Error ? err.message : String(err) };
      } finally {
        spawn?.onStarted?.();
      }
      l.cancelRequested = false;
      l.inFlight--;
      l.run = undefined;
      // Closed, or the session was deleted (forgotten): nothing more is written for it.
      if (!current(key, l)) return;
      const reply = flush(key, l);
      // A crashed, timed-out or garbled agent is gone; the next prompt starts a fresh one.
      if (result.outcome !== 'completed' && result.outcome !== 'cancelled') dropChild(key, l);
      const usage = result.usage ? { usage: result.usage } : {};
      lifecycle.end(
        run,
        result.outcome === 'completed'
          ? { status: 'idle', ...usage }
          : {
              status: result.outcome === 'cancelled' ? 'cancelled' : 'failed',
              outcome: result.outcome,
              error: result.reason ?? result.stopReason ?? result.outcome,
              ...usage,
            },
        spawn,
        reply,
      );
    });
    l.chain = l.chain.catch((err) =>
      deps.logger.error('acp: prompt bookkeeping failed', { sessionKey: key, error: String(err) }),
    );
  };

  /** The profile a spawn asks for (by id or name; by default the first one allowed for `by`). */
  const profileFor = (name: string | undefined, by: 'agent' | 'human', here = true): StoredAcpProfile => {
    const all = deps.profiles.stored.list();
    const profile = name
      ? (deps.profiles.stored.get(name) ?? all.find((x) => x.name === name))
      : by === 'agent'
        ? (all.find((x) => x.allowAgents) ?? all[0])
        : all[0];
    if (!profile) {
      throw name
        ? notFound(`Unknown ACP profile: ${name}`)
        : invalidArgument('No ACP agent profile is configured (add one in Settings → ACP profiles)');
    }
    // Agents may start only profiles the person allowed for agents.
    if (by === 'agent' && !profile.allowAgents)
      throw new GatewayError('forbidden', `profile "${profile.id}" is not allowed for agents`);
    // On a node the program is found there (agent.prepare).
    try {
      if (here) resolveCommand(profile);
    } catch (err) {
      if (err instanceof AcpCommandNotFoundError) throw new GatewayError('unavailable', err.message);
      throw err;
    }
    return profile;
  };

  /** An agent on a paired node: the node must be paired, the folder one on that machine. */
  const planOnNode = (profile: StoredAcpProfile, node: string, cwd: string | undefined) => {
    const name = typeof node === 'string' ? deps.nodes?.name(node) : undefined;
    if (name === undefined) throw notFound(`Unknown node: ${String(node).slice(0, 100)}`);
    const folder = cwd ?? (profile.cwd && path.isAbsolute(profile.cwd) ? profile.cwd : undefined);
    if (folder === undefined) throw invalidArgument(`cwd is required: a folder on the node "${name}"`);
    return { config: profile, cwd: folder, labelHead: `${profile.name} on ${name}`, profileId: profile.id };
  };

  const notRunning = (key: string) =>
    new Error(`The ACP agent of ${key} is not running in this gateway (it ended with a restart)`);

  const runner: ChildRunner & {
    recordToolCall(key: string, call: ToolCallRecord, resultText: string): void;
  } = {
    name: 'acp',
    accepts: (key) => live.has(key) || parseSessionKey(key).kind === 'acp',

    /**
     * The child's profile, and its folder when it was given none: the profile's, else one of its
     * own under workRoot.
     */
    plan(key, req) {
      const profile = profileFor(req.profile, req.by, req.node === undefined);
      if (req.node !== undefined) return planOnNode(profile, req.node, req.cwd);
      const id = parseSessionKey(key).rest.slice('acp:'.length);
      const cwd =
        req.cwd ?? (profile.cwd && path.isAbsolute(profile.cwd) ? profile.cwd : path.join(deps.workRoot, id));
      return { config: profile, cwd, labelHead: profile.name, profileId: profile.id };
    },

    /** Starts the agent of a child just committed; a failure to start ends the run as failed. */
    begin(child) {
      live.set(child.key, newLive(child.config as StoredAcpProfile, child.cwd!, deps.mcp, child.node));
      runPrompt(child.key, child.task, child.spawn);
    },

    /**
     * Starts the agent (consent, process, initialize, session/new) before its session exists, so
     * a failure leaves nothing behind (no process, no credential): it rejects with the cause.
     */
    async launch(child) {
      const key = child.key;
      const l = newLive(child.config as StoredAcpProfile, child.cwd!, deps.mcp, child.node);
      try {
        await ensureChild(key, l);
      } catch (err) {
        dropChild(key, l);
        throw err;
      }
      return {
        begin(task: string, spawn: SpawnInfo): void {
          live.set(key, l);
          runPrompt(key, task, spawn);
        },
        abandon: () => dropChild(key, l),
      };
    },

    /**
     * A message into an ACP child: sent as a prompt (queued while one runs). An agent's message
     * into a child it did not spawn makes a real coding agent act: it waits for the person's yes,
     * whatever the sender's reach (as sends into adopted sessions do).
     */
    async deliver(key, text, from, signal) {
      let l = live.get(key);
      if (!l) throw notRunning(key);
      if (from.type === 'agent' && deps.parentOf(key) !== from.id) {
        await deps.askToSend(key, text, from.id, `prompts the ${l.profile.name} agent`, signal);
        l = live.get(key);
        if (!l) throw notRunning(key);
      }
      const current = l;
      return {
        channel: 'acp',
        write: () => append(key, current, { role: 'user', actorType: from.type, actorId: from.id, text }),
        start: () => runPrompt(key, text),
      };
    },

    /** Sightline's own line (a spawned child's outcome): a turn of its own, like a native parent's. */
    system(key, text) {
      if (!live.has(key)) return false;
      runPrompt(key, undefined, undefined, [text]);
      return true;
    },

    /** An MCP tool call of the session's agent, shown like a built-in agent's call and result. */
    recordToolCall(key, call, resultText) {
      if (closed) return;
      const l = live.get(key);
      if (l) flush(key, l); // what the agent said before the call comes first
      for (const m of [
        { role: 'assistant', actorType: 'agent', actorId: key, text: '', toolCalls: [call] },
        { role: 'tool', actorType: 'system', text: resultText, toolCallId: call.id, toolName: call.name },
      ] as NewMessage[])
        emit({ type: 'transcript:appended', message: transcripts.append(key, m) });
    },

    cancel(key) {
      const l = live.get(key);
      if (!l || l.inFlight === 0) return false;
      if (l.child) l.child.cancel();
      else l.cancelRequested = true;
      return true;
    },

    status(key) {
      const l = live.get(key);
      if (!l) return { busy: false, queued: 0 };
      const run = l.run ?? l.queue[0];
      return { busy: l.inFlight > 0, queued: l.queue.length, ...(run ? { run: { ...run } } : {}) };
    },

    retryable: (key) => live.has(key),

    /** The failed prompt again (the last message sent to the agent), to a fresh agent. */
    retry(session) {
      const key = session.key;
      if (!live.has(key)) return false;
      const last = transcripts
        .all(key)
        .filter((m) => m.role === 'user')
        .pop();
      if (!last) return false;
      const spawn = session.parentKey
        ? { parentKey: session.parentKey, runId: lifecycle.open(key, undefined, 'queued').runId }
        : undefined;
      runPrompt(key, last.text, spawn);
      return true;
    },

    /**
     * A reset session: its agent's conversation goes with the transcript. The running agent is
     * stopped (its late updates write nothing) and the next prompt starts a fresh one.
     */
    reset(key) {
      const l = live.get(key);
      if (!l) return;
      live.set(key, newLive(l.profile, l.cwd, l.mcp, l.node));
      deps.permissions.withdrawSession(key);
      dropChild(key, l);
    },

    forget(key) {
      const l = live.get(key);
      if (!l) return;
      live.delete(key);
      // Answered "rejected" for the agent; nothing is written for a session that is gone.
      deps.permissions.withdrawSession(key);
      dropChild(key, l);
    },

    /** Stops every agent on gateway close: no child outlives the gateway. */
    close(): Promise<void> {
      closed = true;
      for (const l of live.values()) l.child?.killNow();
      live.clear();
      return closeAllAcpChildren();
    },
  };
  /** An agent that answered authRequired: what it offers, and the profile it runs. */
  const authPath = {
    auth(key: string) {
      const l = live.get(key);
      if (!l) return undefined;
      return { profile: l.profile, methods: l.child?.authMethods ?? authSeen.get(key) ?? [] };
    },

    /** ACP `authenticate` with the method the person chose; then Retry sends the prompt again. */
    async authenticate(key: string, methodId: string): Promise<void> {
      const l = live.get(key);
      if (!l) throw notRunning(key);
      // The agent that said authRequired was stopped: a fresh one is authenticated, then prompted.
      await (await ensureChild(key, l)).authenticate(methodId);
    },

    /** The profile changed (an API key added): the next prompt starts a fresh agent with it. */
    useProfile(key: string, profile: StoredAcpProfile): void {
      const l = live.get(key);
      if (!l || l.inFlight > 0) return;
      dropChild(key, l);
      l.profile = profile;
    },
  };
  return Object.assign(runner, authPath);
}
