// A person's (or the gateway's) say over a running ACP child: cancel its prompt, ask its status,
// retry the failed prompt with a fresh agent, reset or forget its session, close every agent.
import type { SessionRunner } from '../runner';
import { closeAllAcpChildren } from './live-children';
import { newLive, type LiveTable } from './live-table';
import { runPrompt } from './prompt-run';

type Control = Pick<SessionRunner, 'cancel' | 'status' | 'retryable' | 'retry' | 'reset' | 'forget'> & {
  close(): Promise<void>;
};

export function createAcpControl(t: LiveTable): Control {
  const { live, deps } = t;
  return {
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
      const last = deps.transcripts
        .all(key)
        .filter((m) => m.role === 'user')
        .pop();
      if (!last) return false;
      const spawn = session.parentKey
        ? { parentKey: session.parentKey, runId: deps.lifecycle.open(key, undefined, 'queued').runId }
        : undefined;
      runPrompt(t, key, last.text, spawn);
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
      t.dropChild(key, l);
    },

    forget(key) {
      const l = live.get(key);
      if (!l) return;
      live.delete(key);
      // Answered "rejected" for the agent; nothing is written for a session that is gone.
      deps.permissions.withdrawSession(key);
      t.dropChild(key, l);
    },

    /** Stops every agent on gateway close: no child outlives the gateway. */
    close(): Promise<void> {
      t.closed = true;
      for (const l of live.values()) l.child?.killNow();
      live.clear();
      return closeAllAcpChildren();
    },
  };
}
