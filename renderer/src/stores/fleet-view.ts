// How the person looks at the fleet (issue 25.1): row density, a status and a tool filter, the
// sort, the grouping, and the rows picked for a bulk action. Kept apart from the fleet's data so a
// change of view never copies 10,000 sessions.
import { create } from 'zustand';
import type { SessionStatus } from '../../../shared/ipc';

/** `upstream` = an adopted session whose file vanished (upstream_missing). */
export type StatusFilter = 'all' | SessionStatus | 'upstream';
export type FleetSort = 'tree' | 'activity' | 'status' | 'name';
/** `agent`: by agent, children under their parent (the parent tree); `folder`: by project folder. */
export type FleetGroup = 'agent' | 'folder';
/** `auto`: compact from COMPACT_FROM sessions on, the three-line row below. */
export type Density = 'auto' | 'compact' | 'comfortable';

/** From this many sessions on, `auto` density shows one line a session. */
export const COMPACT_FROM = 30;

interface FleetViewState {
  density: Density;
  status: StatusFilter;
  /** A tool label (see toolOf) or '' for every tool. */
  tool: string;
  sort: FleetSort;
  group: FleetGroup;
  /** Rows picked for a bulk action (keys). */
  picked: ReadonlySet<string>;
  set(patch: Partial<Pick<FleetViewState, 'density' | 'status' | 'tool' | 'sort' | 'group'>>): void;
  toggle(key: string): void;
  pick(keys: string[]): void;
  clearPicked(): void;
}

export const useFleetView = create<FleetViewState>()((set) => ({
  density: 'auto',
  status: 'all',
  tool: '',
  sort: 'tree',
  group: 'agent',
  picked: new Set<string>(),
  set: (patch) => set(patch),
  toggle: (key) =>
    set((s) => {
      const picked = new Set(s.picked);
      if (picked.has(key)) picked.delete(key);
      else picked.add(key);
      return { picked };
    }),
  pick: (keys) => set({ picked: new Set(keys) }),
  clearPicked: () => set({ picked: new Set<string>() }),
}));
