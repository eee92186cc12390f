// New session: where the agent runs (issue 30.1). This machine, or a paired node that is connected
// now; a node that is not is listed but cannot be chosen, and says why. Only an ACP agent runs on a
// node, and there it works in the folder itself (worktrees on a node are not supported yet).
import { useEffect } from 'react';
import type { NodeInfo } from '../../../../shared/ipc';
import { useNodes } from '../../stores/nodes';

function why(n: NodeInfo): string {
  if (n.lastError) return n.lastError;
  if (n.offlineSince) return `offline since ${new Date(n.offlineSince).toLocaleString()}`;
  return 'not connected';
}

/** The paired nodes, loaded once the dialog opens (the store follows `nodes:changed`). */
export function usePairedNodes(): NodeInfo[] {
  const nodes = useNodes((s) => s.nodes);
  const loaded = useNodes((s) => s.loaded);
  useEffect(() => {
    if (!loaded)
      void useNodes
        .getState()
        .load()
        .catch(() => undefined);
  }, [loaded]);
  return nodes;
}

export function RunsOnField({
  nodes,
  value,
  acp,
  onChange,
}: {
  nodes: NodeInfo[];
  /** '' for this machine, else a node id. */
  value: string;
  /** The chosen runner is an ACP agent (only those run on a node). */
  acp: boolean;
  onChange(node: string): void;
}) {
  if (nodes.length === 0) return null;
  return (
    <>
      <label htmlFor="start-node">Runs on</label>
      <div>
        <select
          id="start-node"
          data-testid="start-node"
          value={value}
          disabled={!acp}
          onChange={(e) => onChange(e.target.value)}
        >
          <option value="">this machine</option>
          {nodes.map((n) => (
            <option key={n.id} value={n.id} disabled={n.state !== 'online'} data-state={n.state}>
              {n.state === 'online' ? n.name : `${n.name} — not connected: ${why(n)}`}
            </option>
          ))}
        </select>
        {!acp && <p className="field-note">Only an ACP agent runs on a paired node.</p>}
        {acp && value && (
          <p className="field-note" data-testid="start-node-note">
            The agent runs on that machine, in the folder below there; worktrees on a node are not supported
            yet, so it works in the folder itself.
          </p>
        )}
      </div>
    </>
  );
}
