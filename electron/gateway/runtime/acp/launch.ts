// Starting an ACP child: after its session is committed (a spawn: a failure to start ends the
// first run as failed), or before it (a person's start: a failure leaves nothing behind).
import type { ChildRunner } from '../runner';
import type { SpawnInfo } from '../child-outcome';
import { ensureChild } from './agent-start';
import { newLive, type LiveTable } from './live-table';
import type { StoredAcpProfile } from './profile-store';
import { runPrompt } from './prompt-run';

export function createAcpLaunch(
  t: LiveTable,
): Pick<ChildRunner, 'begin'> & Required<Pick<ChildRunner, 'launch'>> {
  const { live, deps } = t;
  return {
    /** Starts the agent of a child just committed; a failure to start ends the run as failed. */
    begin(child) {
      live.set(child.key, newLive(child.config as StoredAcpProfile, child.cwd!, deps.mcp, child.node));
      runPrompt(t, child.key, child.task, child.spawn);
    },

    /**
     * Starts the agent (consent, process, initialize, session/new) before its session exists, so
     * a failure leaves nothing behind (no process, no credential): it rejects with the cause.
     */
    async launch(child) {
      const key = child.key;
      const l = newLive(child.config as StoredAcpProfile, child.cwd!, deps.mcp, child.node);
      try {
        await ensureChild(t, key, l);
      } catch (err) {
        t.dropChild(key, l);
        throw err;
      }
      return {
        begin(task: string, spawn: SpawnInfo): void {
          live.set(key, l);
          runPrompt(t, key, task, spawn);
        },
        abandon: () => t.dropChild(key, l),
      };
    },
  };
}
