import { useMemo } from 'react';
import { sessionList, useFleet } from '../../stores/fleet';
import { useFleetView } from '../../stores/fleet-view';
import { buildTree, type AgentGroup } from './tree';

/**
 * The fleet tree as the person set it up (filters, sort, grouping). It is rebuilt only when its
 * shape changes (see FleetState.shape), not on every badge update: with 10,000 sessions a rebuild
 * per pushed batch costs whole frames. A status filter or a sort by status or activity depends on
 * more than the shape: then every commit of the sessions map rebuilds it (at most every 100 ms).
 * Rows carry the views of the last rebuild; a row renders its badges from the store.
 */
export function useFleetTree(): AgentGroup[] {
  const agents = useFleet((s) => s.agents);
  const shape = useFleet((s) => s.shape);
  const filter = useFleet((s) => s.filter);
  const showArchived = useFleet((s) => s.showArchived);
  const status = useFleetView((s) => s.status);
  const tool = useFleetView((s) => s.tool);
  const sort = useFleetView((s) => s.sort);
  const group = useFleetView((s) => s.group);
  const live = status !== 'all' || sort === 'status' || sort === 'activity';
  const sessions = useFleet((s) => (live ? s.sessions : null));
  return useMemo(
    () =>
      buildTree(agents, sessionList(sessions ?? useFleet.getState().sessions), {
        filter,
        showArchived,
        status,
        tool,
        sort,
        group,
      }),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `shape` stands for the sessions' shape
    [agents, shape, sessions, filter, showArchived, status, tool, sort, group],
  );
}
