// A child's run lifecycle: each prompt is a run of its own (queued behind the one in flight, one
// at a time per agent). It drains the session's notice queue — the same drain as a native turn,
// so the same acknowledge and reopen rules — once the agent is up, and the drained lines go ahead
// of the prompt as a system note. A crashed, timed-out or garbled agent ends its run as failed
// and is dropped: the next prompt starts a fresh one.
import type { RunEnd } from '../run-lifecycle';
import type { SpawnInfo } from '../child-outcome';
import { systemNote } from '../system-note';
import { ensureChild } from './agent-start';
import type { Live, LiveTable } from './live-table';
import type { AcpRunResult } from './types';

/** One turn: `text` (absent for a turn of Sightline's own lines only) after any system lines. */
export function runPrompt(
  t: LiveTable,
  key: string,
  text: string | undefined,
  spawn?: SpawnInfo,
  system: string[] = [],
): void {
  const l = t.live.get(key);
  if (!l) return;
  // A spawned run was created with its session; a later prompt starts a run of its own.
  const run = t.deps.lifecycle.open(key, spawn, 'queued');
  l.inFlight++;
  l.queue.push(run);
  l.chain = l.chain.then(async () => {
    l.queue.shift();
    if (!t.current(key, l)) return spawn?.onStarted?.();
    l.run = run;
    t.deps.lifecycle.begin(run);
    const result = await prompt(t, key, l, text, spawn, system);
    if (!result) return;
    l.cancelRequested = false;
    l.inFlight--;
    l.run = undefined;
    // Closed, or the session was deleted (forgotten): nothing more is written for it.
    if (!t.current(key, l)) return;
    const reply = t.flush(key, l);
    // A crashed, timed-out or garbled agent is gone; the next prompt starts a fresh one.
    if (result.outcome !== 'completed' && result.outcome !== 'cancelled') t.dropChild(key, l);
    t.deps.lifecycle.end(run, runEnd(result), spawn, reply);
  });
  l.chain = l.chain.catch((err) =>
    t.deps.logger.error('acp: prompt bookkeeping failed', { sessionKey: key, error: String(err) }),
  );
}

/**
 * The prompt to the agent (started first if need be); a failure to start or send is its result.
 * Undefined: the session went (deleted or reset) while its agent was starting.
 */
async function prompt(
  t: LiveTable,
  key: string,
  l: Live,
  text: string | undefined,
  spawn: SpawnInfo | undefined,
  system: string[],
): Promise<AcpRunResult | undefined> {
  try {
    const child = await ensureChild(t, key, l);
    // Deleted or reset while its agent was starting: that agent (and its credential) goes now.
    if (!t.current(key, l)) {
      t.dropChild(key, l);
      return undefined;
    }
    // The turn starts now, with the agent there to hear it: a turn that could not start
    // drained nothing, so its notice stays pending and comes with the next one.
    const lines = t.deps.lifecycle.notes(key, system);
    const note = lines.length ? systemNote(lines) : undefined;
    if (note) t.append(key, l, { role: 'system', actorType: 'system', text: note });
    const blocks = [...(note ? [note] : []), ...(text !== undefined ? [text] : [])];
    const sent = child.prompt(blocks, spawn?.timeoutMs ? { timeoutMs: spawn.timeoutMs } : {});
    spawn?.onStarted?.();
    if (l.cancelRequested) child.cancel();
    return await sent;
  } catch (err) {
    return { outcome: 'error', reason: err instanceof Error ? err.message : String(err) };
  } finally {
    spawn?.onStarted?.();
  }
}

/** How the run ends, from how the prompt did. */
function runEnd(result: AcpRunResult): RunEnd {
  const usage = result.usage ? { usage: result.usage } : {};
  if (result.outcome === 'completed') return { status: 'idle', ...usage };
  return {
    status: result.outcome === 'cancelled' ? 'cancelled' : 'failed',
    outcome: result.outcome,
    error: result.reason ?? result.stopReason ?? result.outcome,
    ...usage,
  };
}
