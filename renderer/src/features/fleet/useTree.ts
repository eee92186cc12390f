import { useMemo } from 'react';
import { useFleet } from '../../stores/fleet';
import { buildTree, type AgentGroup } from './tree';

/**
 * The fleet tree. It is rebuilt only when its shape changes (see FleetState.shape), not on every
 * badge update: with 10,000 sessions a rebuild per pushed batch costs whole frames. Its rows
 * carry the views of the last rebuild; render a row's badges from the store (useSessionView).
 */
export function useFleetTree(filter?: string): AgentGroup[] {
  const agents = useFleet((s) => s.agents);
  const shape = useFleet((s) => s.shape);
  const storeFilter = useFleet((s) => s.filter);
  const showArchived = useFleet((s) => s.showArchived);
  const f = filter ?? storeFilter;
  return useMemo(
    () => buildTree(agents, Object.values(useFleet.getState().sessions), f, showArchived),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `shape` stands for the sessions' shape
    [agents, shape, f, showArchived],
  );
}
