import { useMemo } from 'react';
import { useFleet } from '../../stores/fleet';
import { buildTree, type AgentGroup } from './tree';

export function useFleetTree(filter?: string): AgentGroup[] {
  const agents = useFleet((s) => s.agents);
  const sessions = useFleet((s) => s.sessions);
  const storeFilter = useFleet((s) => s.filter);
  const f = filter ?? storeFilter;
  return useMemo(() => buildTree(agents, Object.values(sessions), f), [agents, sessions, f]);
}
