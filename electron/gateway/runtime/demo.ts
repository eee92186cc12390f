// The demo fleet: a scripted coordinator (agent `demo`) with three workers, so a newcomer sees the
// notice → reconcile cycle within a minute of stepping into a worker.
import type { SessionStore } from '../sessions/store';
import type { AgentConfig, Sessions } from '../types';
import type { Goals } from './goals';
import type { TurnEngine } from './native/turns';

export const DEMO_AGENT = 'demo';
export const DEMO_TASK =
  'Prepare the v2.0 release notes: research the merged changes, draft the notes, and review the draft.';

export async function startDemo(deps: {
  agents: {
    get(id: string): AgentConfig | undefined;
    save(cfg: Partial<AgentConfig> & { id: string }): AgentConfig;
  };
  sessions: Sessions;
  goals: Goals;
  store: SessionStore;
  engine: TurnEngine;
  human: { send(key: string, text: string, opts?: { channel?: string }): Promise<void> };
}): Promise<{ coordinatorKey: string; workerKeys: string[] }> {
  const existing = deps.agents.get(DEMO_AGENT);
  const agent = deps.agents.save({
    id: DEMO_AGENT,
    name: 'Demo coordinator',
    provider: 'scripted',
    // Workers take about half a minute, long enough to step into one while it runs.
    providerSettings: existing?.providerSettings ?? { stepMs: '4000', steps: '8' },
    heartbeatSeconds: existing?.heartbeatSeconds ?? 0,
  });
  const coordinatorKey = agent.mainKey;
  deps.sessions.create({ key: coordinatorKey, label: 'Demo coordinator' });
  if (!deps.goals.get(coordinatorKey)) {
    deps.goals.set(
      coordinatorKey,
      { objective: 'Ship the v2.0 release notes' },
      { type: 'human', id: 'local-user' },
    );
  }
  const before = new Set(deps.store.children(coordinatorKey).map((s) => s.key));
  await deps.human.send(coordinatorKey, DEMO_TASK);
  await waitForChildren(deps, coordinatorKey, before);
  const workerKeys = deps.store
    .children(coordinatorKey)
    .map((s) => s.key)
    .filter((k) => !before.has(k));
  return { coordinatorKey, workerKeys };
}

/** The coordinator's first turn spawns the workers; wait for it (bounded). */
async function waitForChildren(
  deps: { store: SessionStore; engine: TurnEngine },
  key: string,
  before: Set<string>,
) {
  for (let i = 0; i < 200; i++) {
    const status = deps.engine.status(key);
    const spawned = deps.store.children(key).some((s) => !before.has(s.key));
    if (spawned && !status.busy && status.queued === 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Back to a fresh demo: every session of agent `demo` is deleted (their turns cancelled, their
 * signal log rows kept as for any deletion, so state versions never go back), then the demo
 * starts again.
 */
export async function resetDemo(
  deps: Parameters<typeof startDemo>[0],
): Promise<{ coordinatorKey: string; workerKeys: string[] }> {
  for (const s of deps.sessions.list()) {
    if (s.agentId === DEMO_AGENT) deps.sessions.delete(s.key, DEMO_AGENT);
  }
  return startDemo(deps);
}
