// An agent that answered authRequired: what it offers, the person's chosen method sent to a
// fresh agent, and a changed profile (an API key added) taken by the next agent started.
import { ensureChild } from './agent-start';
import type { LiveTable } from './live-table';
import type { StoredAcpProfile } from './profile-store';

export function createAuthPath(t: LiveTable) {
  const { live, authSeen } = t;
  return {
    /** What the session's agent offers to authenticate with, and the profile it runs. */
    auth(key: string) {
      const l = live.get(key);
      if (!l) return undefined;
      return { profile: l.profile, methods: l.child?.authMethods ?? authSeen.get(key) ?? [] };
    },

    /** ACP `authenticate` with the method the person chose; then Retry sends the prompt again. */
    async authenticate(key: string, methodId: string): Promise<void> {
      const l = live.get(key);
      if (!l) throw t.notRunning(key);
      // The agent that said authRequired was stopped: a fresh one is authenticated, then prompted.
      await (await ensureChild(t, key, l)).authenticate(methodId);
    },

    /** The profile changed (an API key added): the next prompt starts a fresh agent with it. */
    useProfile(key: string, profile: StoredAcpProfile): void {
      const l = live.get(key);
      if (!l || l.inFlight > 0) return;
      t.dropChild(key, l);
      l.profile = profile;
    },
  };
}
