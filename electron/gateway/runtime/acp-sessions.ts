// ACP child sessions: external coding agents spawned as supervised children. Each child session
// owns one agent process (started on first use), its prompts run one at a time, its updates
// stream into the transcript, and permission questions wait for the person alone.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseSessionKey } from '../../../shared/session-keys';
import type { SessionStore } from '../sessions/store';
import type { TranscriptStore } from '../sessions/transcripts';
import type { StateCore } from '../state/session-state';
import { invalidArgument } from '../errors';
import { ToolError } from '../tools/registry';
import type { AcpProfileConfig, GatewayEvent, Logger, PermissionRequestView, RunInfo } from '../types';
import {
  AcpChild,
  AcpCommandNotFoundError,
  closeAllAcpChildren,
  resolveCommand,
  type AcpRunResult,
  type AcpUpdate,
} from './acp';
import type { AcpProfileStore } from './acp-profiles';
import type { RunStore } from './runs';
import type { SpawnInfo } from './turns';

interface Live {
  profile: AcpProfileConfig;
  cwd: string;
  child?: AcpChild;
  chain: Promise<unknown>;
  inFlight: number;
  buffer: string;
  /** A cancel that arrived while the agent was still starting. */
  cancelRequested: boolean;
}

export interface AcpSessionsDeps {
  now: () => number;
  logger: Logger;
  emit: (e: GatewayEvent) => void;
  store: SessionStore;
  state: StateCore;
  transcripts: TranscriptStore;
  runs: RunStore;
  profiles: AcpProfileStore;
  /** Where children without a configured working directory get one of their own. */
  workRoot: string;
  onRunEnd: (childKey: string, run: RunInfo, spawn: SpawnInfo, text: string | undefined) => void;
}

export type AcpSessions = ReturnType<typeof createAcpSessions>;

export function createAcpSessions(deps: AcpSessionsDeps) {
  const { store, transcripts, runs, emit } = deps;
  const live = new Map<string, Live>();
  // After close() the database is gone: late callbacks from agent processes touch nothing.
  let closed = false;
  const pending = new Map<
    string,
    { view: PermissionRequestView; settle: (optionId: string | undefined) => void }
  >();

  const append = (key: string, m: Parameters<TranscriptStore['append']>[1]) =>
    emit({ type: 'transcript:appended', message: transcripts.append(key, m) });

  const flush = (key: string, l: Live) => {
    if (!l.buffer.trim()) return undefined;
    const text = l.buffer;
    l.buffer = '';
    append(key, { role: 'assistant', actorType: 'agent', actorId: key, text });
    return text;
  };

  const onUpdate = (key: string, l: Live, u: AcpUpdate) => {
    if (u.kind === 'message') {
      l.buffer += u.text;
      return;
    }
    flush(key, l);
    if (u.kind === 'plan') {
      append(key, {
        role: 'assistant',
        actorType: 'agent',
        actorId: key,
        text: `Plan:\n${u.entries.map((e) => `- [${e.status}] ${e.content}`).join('\n')}`,
      });
    } else if (u.kind === 'tool_call' || u.status === 'completed' || u.status === 'failed') {
      append(key, {
        role: 'tool',
        actorType: 'agent',
        toolName: 'acp',
        toolCallId: u.toolCallId,
        text: `${u.title} — ${u.status}`,
      });
    }
  };

  const ensureChild = async (key: string, l: Live): Promise<AcpChild> => {
    if (l.child) return l.child;
    fs.mkdirSync(l.cwd, { recursive: true });
    l.child = await AcpChild.start({
      profile: l.profile,
      cwd: l.cwd,
      logger: { warn: (m, f) => deps.logger.warn(`acp: ${m}`, { sessionKey: key, ...(f as object) }) },
      onUpdate: (u) => onUpdate(key, l, u),
      onPermission: (req) =>
        new Promise((resolve) => {
          const view: PermissionRequestView = {
            id: req.id,
            sessionKey: key,
            title: req.title,
            options: req.options,
            createdAt: deps.now(),
          };
          pending.set(req.id, {
            view,
            settle: (optionId) => {
              pending.delete(req.id);
              const option = req.options.find((o) => o.optionId === optionId);
              const decision = option ? `${option.name} (${option.kind})` : 'rejected';
              flush(key, l);
              append(key, {
                role: 'system',
                actorType: 'human',
                actorId: 'local-user',
                text: `Permission "${req.title}": ${decision}`,
              });
              emit({ type: 'acp:permission-resolved', requestId: req.id, sessionKey: key, decision });
              resolve(option ? { outcome: 'selected', optionId: option.optionId } : { outcome: 'cancelled' });
            },
          });
          emit({ type: 'acp:permission', request: view });
        }),
    });
    return l.child;
  };

  const runPrompt = (key: string, text: string, spawn?: SpawnInfo) => {
    const l = live.get(key);
    if (!l) return;
    const run = spawn
      ? {
          ...(runs.list(key, 5).find((r) => r.runId === spawn.runId) ??
            runs.start(spawn.runId, key, 'queued', deps.now())),
        }
      : runs.start(randomUUID(), key, 'queued', deps.now());
    emit({ type: 'run:changed', run: { ...run } });
    l.inFlight++;
    l.chain = l.chain.then(async () => {
      if (closed) return;
      run.status = 'running';
      run.startedAt = deps.now();
      runs.save(run);
      emit({ type: 'run:changed', run: { ...run } });
      let result: AcpRunResult;
      try {
        const child = await ensureChild(key, l);
        if (closed) return;
        const prompt = child.prompt(text, spawn?.timeoutMs ? { timeoutMs: spawn.timeoutMs } : {});
        if (l.cancelRequested) child.cancel();
        result = await prompt;
      } catch (err) {
        result = { outcome: 'error', reason: err instanceof Error ? err.message : String(err) };
      }
      l.cancelRequested = false;
      if (closed) return;
      const reply = flush(key, l);
      if (result.outcome === 'completed') run.status = 'idle';
      else {
        run.status = result.outcome === 'cancelled' ? 'cancelled' : 'failed';
        run.outcome = result.outcome;
        run.error = result.reason ?? result.stopReason ?? result.outcome;
        if (result.outcome !== 'cancelled') {
          // A crashed, timed-out or garbled agent is gone; the next prompt starts a fresh one.
          void l.child?.close();
          l.child = undefined;
        }
      }
      run.endedAt = deps.now();
      runs.save(run);
      emit({ type: 'run:changed', run: { ...run } });
      l.inFlight--;
      if (spawn) deps.onRunEnd(key, run, spawn, reply);
    });
    l.chain = l.chain.catch((err) =>
      deps.logger.error('acp: prompt bookkeeping failed', { sessionKey: key, error: String(err) }),
    );
  };

  const findProfile = (name: string | undefined): AcpProfileConfig => {
    const all = deps.profiles.list();
    if (!name) {
      if (!all[0])
        throw new ToolError('No ACP agent profile is configured (add one in Settings → ACP profiles)');
      return all[0];
    }
    const p = deps.profiles.get(name) ?? all.find((x) => x.name === name);
    if (!p) throw new ToolError(`Unknown ACP profile: ${name}`);
    return p;
  };

  return {
    async spawn(input: {
      caller: string;
      task: string;
      label?: string;
      profile?: string;
      timeoutMs?: number;
      agentId: string;
    }) {
      const profile = findProfile(input.profile);
      try {
        resolveCommand(profile);
      } catch (err) {
        if (err instanceof AcpCommandNotFoundError) throw new ToolError(err.message);
        throw err;
      }
      const id = randomUUID().slice(0, 8);
      const key = `agent:${input.agentId}:acp:${id}`;
      const cwd = profile.cwd && path.isAbsolute(profile.cwd) ? profile.cwd : path.join(deps.workRoot, id);
      store.create({
        key,
        parentKey: input.caller,
        label: input.label ?? `${profile.name}: ${input.task.slice(0, 60)}`,
      });
      emit({ type: 'session:changed', sessionKey: key });
      live.set(key, {
        profile,
        cwd,
        chain: Promise.resolve(),
        inFlight: 0,
        buffer: '',
        cancelRequested: false,
      });
      // Before the first prompt, so the parent's cursor is seeded.
      deps.state.record({
        sessionKey: key,
        kind: 'child_spawned',
        actorType: 'agent',
        actorId: input.caller,
        summary: 'child session spawned',
        watchers: [input.caller],
      });
      append(key, { role: 'user', actorType: 'agent', actorId: input.caller, text: input.task });
      const runId = randomUUID();
      runs.start(runId, key, 'queued', deps.now());
      runPrompt(key, input.task, {
        parentKey: input.caller,
        runId,
        ...(input.timeoutMs ? { timeoutMs: input.timeoutMs } : {}),
      });
      return { status: 'accepted', childSessionKey: key, runId, runtime: 'acp', profile: profile.id };
    },

    /** A message into an ACP child: sent as a prompt (queued while one runs). */
    deliver(key: string, text: string, from: { type: 'agent' | 'human'; id: string }): boolean {
      if (parseSessionKey(key).kind !== 'acp') return false;
      if (!live.has(key))
        throw new Error(`The ACP agent of ${key} is not running in this gateway (it ended with a restart)`);
      append(key, { role: 'user', actorType: from.type, actorId: from.id, text });
      runPrompt(key, text);
      return true;
    },

    cancel(key: string): boolean {
      const l = live.get(key);
      if (!l || l.inFlight === 0) return false;
      if (l.child) l.child.cancel();
      else l.cancelRequested = true;
      return true;
    },

    permissions: {
      pending: (): PermissionRequestView[] => [...pending.values()].map((p) => p.view),
      /** The person's answer; `undefined` rejects. */
      respond(requestId: string, optionId: string | undefined): boolean {
        const p = pending.get(requestId);
        if (!p) return false;
        if (optionId !== undefined && !p.view.options.some((o) => o.optionId === optionId)) {
          throw invalidArgument(`Unknown permission option: ${optionId}`);
        }
        const reject = p.view.options.find((o) => o.kind === 'reject_once')?.optionId;
        p.settle(optionId ?? reject);
        return true;
      },
    },

    forget(key: string): void {
      const l = live.get(key);
      if (!l) return;
      live.delete(key);
      for (const p of [...pending.values()]) if (p.view.sessionKey === key) p.settle(undefined);
      void l.child?.close();
    },

    /** Synchronous stop on gateway close: no child outlives the gateway. */
    closeAll(): Promise<void> {
      closed = true;
      for (const p of [...pending.values()]) p.settle(undefined);
      for (const l of live.values()) l.child?.killNow();
      live.clear();
      return closeAllAcpChildren();
    },
  };
}
