// The native runner: sessions whose turns Sightline runs itself with a model (main sessions,
// native sub-agents), through the turn engine.
import { randomUUID } from 'node:crypto';
import { parseSessionKey, runsOwnTurns } from '../../../../shared/session-keys';
import type { TranscriptStore } from '../../sessions/transcripts';
import type { GatewayEvent } from '../../types';
import type { ChildRunner } from '../runner';
import type { RunStore } from '../runs';
import type { TurnEngine } from './turns';

export interface NativeRunnerDeps {
  engine: TurnEngine;
  transcripts: TranscriptStore;
  runs: RunStore;
  emit: (e: GatewayEvent) => void;
  now: () => number;
}

export function createNativeRunner(deps: NativeRunnerDeps): ChildRunner {
  const { engine } = deps;
  return {
    name: 'native',
    accepts: runsOwnTurns,
    deliver: async (key, text, from) => ({
      channel: undefined,
      write: () =>
        deps.emit({
          type: 'transcript:appended',
          message: deps.transcripts.append(key, {
            role: 'user',
            actorType: from.type,
            actorId: from.id,
            text,
          }),
        }),
      start: () => void engine.enqueue(key, { kind: 'user' }),
    }),
    system(key, text) {
      void engine.enqueue(key, { kind: 'system', text });
      return true;
    },
    cancel: (key) => engine.cancel(key, 'cancelled'),
    reset: (key) => engine.forget(key),
    forget: (key) => engine.forget(key),
    status: (key) => engine.status(key),
    retryable: runsOwnTurns,
    /** A spawned child reports the new run to its parent as the first one would have. */
    retry(session) {
      if (session.parentKey && parseSessionKey(session.key).kind === 'subagent') {
        const runId = randomUUID();
        deps.runs.start(runId, session.key, 'queued', deps.now());
        void engine.enqueue(session.key, { kind: 'task', spawn: { parentKey: session.parentKey, runId } });
      } else {
        void engine.enqueue(session.key, { kind: 'user' });
      }
      return true;
    },
    close: () => engine.stop(),
    plan: () => ({}),
    begin(child) {
      // A turn that is never run (the gateway closing) resolves the enqueue instead.
      void engine
        .enqueue(child.key, { kind: 'task', spawn: child.spawn })
        .then(() => child.spawn.onStarted?.());
    },
  };
}
