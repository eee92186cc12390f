// Settings → Nodes: how long an agent started on a node keeps running after its link drops,
// waiting for Sightline to reach the node again (issue 30.1). One setting for every node: it is
// about how long a person tolerates a network blip before the node stops the agent and the run
// ends `failed: link lost`. Kept by the gateway; a running agent's node hears a change at once.
import { LIMITS } from '../../../../shared/ipc/limits';
import { errorMessage } from '../../lib/api';
import { usePreferences } from '../../stores/preferences';
import { useUi } from '../../stores/ui';

const { min, max } = LIMITS.agentGraceSeconds;

export function AgentGrace() {
  const seconds = usePreferences((s) => s.prefs.nodes.agentGraceSeconds);
  const loaded = usePreferences((s) => s.loaded);
  const set = usePreferences((s) => s.set);
  const setError = useUi((s) => s.setError);
  return (
    <label className="block" data-testid="agent-grace">
      An agent on a node keeps running after its link drops for{' '}
      <input
        // A new value from the gateway (another window, the first load) replaces what is shown.
        key={`${loaded}-${seconds}`}
        type="number"
        className="narrow"
        aria-label="Seconds an agent on a node outlives a dropped link"
        data-testid="agent-grace-seconds"
        min={min}
        max={max}
        defaultValue={seconds}
        onBlur={(e) => {
          const v = Number(e.target.value);
          if (!Number.isInteger(v) || v < min || v > max) {
            e.target.value = String(seconds);
            return setError(`The grace must be a whole number of seconds from ${min} to ${max}`);
          }
          if (v !== seconds)
            set({ nodes: { agentGraceSeconds: v } }).catch((err: unknown) => setError(errorMessage(err)));
        }}
      />{' '}
      seconds, then the node stops it and its run ends <code>failed: link lost</code>.
    </label>
  );
}
