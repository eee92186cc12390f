// Above the fleet list: what to show (status, tool), in which order and grouping, how dense;
// and, once rows are picked (Ctrl/⌘-click or Space), the bulk actions.
import { useMemo } from 'react';
import { SESSION_STATUSES } from '../../../../shared/ipc';
import { call, errorMessage } from '../../lib/api';
import { sessionList, useFleet } from '../../stores/fleet';
import {
  useFleetView,
  type Density,
  type FleetGroup,
  type FleetSort,
  type StatusFilter,
} from '../../stores/fleet-view';
import { useUi } from '../../stores/ui';
import { STATUS_LOOK } from '../../components/Badges';
import { toolOf } from './tree';

const SORTS: { id: FleetSort; label: string }[] = [
  { id: 'tree', label: 'Parent tree' },
  { id: 'activity', label: 'Last activity' },
  { id: 'status', label: 'Status' },
  { id: 'name', label: 'Name' },
];
const GROUPS: { id: FleetGroup; label: string }[] = [
  { id: 'agent', label: 'Agent' },
  { id: 'folder', label: 'Project folder' },
];
const DENSITIES: { id: Density; label: string }[] = [
  { id: 'auto', label: 'Auto' },
  { id: 'compact', label: 'One line' },
  { id: 'comfortable', label: 'Three lines' },
];

/** The tools present in the fleet (for the tool filter), computed once per shape. */
function useTools(): string[] {
  const shape = useFleet((s) => s.shape);
  const agents = useFleet((s) => s.agents);
  return useMemo(() => {
    const byId = new Map(agents.map((a) => [a.id, a]));
    const all = new Set(sessionList(useFleet.getState().sessions).map((s) => toolOf(s, byId)));
    return [...all].sort();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `shape` stands for the sessions' shape
  }, [shape, agents]);
}

export function FleetControls() {
  const v = useFleetView();
  const tools = useTools();
  return (
    <div className="fleet-controls" data-testid="fleet-controls">
      <select
        id="fleet-status"
        aria-label="Status"
        data-testid="fleet-status-filter"
        value={v.status}
        title="Show sessions with this status"
        onChange={(e) => v.set({ status: e.target.value as StatusFilter })}
      >
        <option value="all">Any status</option>
        {SESSION_STATUSES.map((st) => (
          <option key={st} value={st}>
            {STATUS_LOOK[st].icon} {STATUS_LOOK[st].label}
          </option>
        ))}
        <option value="upstream">⚠ upstream missing</option>
      </select>
      <select
        id="fleet-tool"
        aria-label="Agent or tool"
        data-testid="fleet-tool-filter"
        value={v.tool}
        title="Show sessions run by this agent or tool"
        onChange={(e) => v.set({ tool: e.target.value })}
      >
        <option value="">Any tool</option>
        {tools.map((t) => (
          <option key={t}>{t}</option>
        ))}
      </select>
      <select
        id="fleet-sort"
        aria-label="Sort by"
        data-testid="fleet-sort"
        value={v.sort}
        title="Order of the rows"
        onChange={(e) => v.set({ sort: e.target.value as FleetSort })}
      >
        {SORTS.map((s) => (
          <option key={s.id} value={s.id}>
            Sort: {s.label}
          </option>
        ))}
      </select>
      <select
        id="fleet-group"
        aria-label="Group by"
        data-testid="fleet-group"
        value={v.group}
        title="Group rows by agent (with their parent tree) or by project folder"
        onChange={(e) => v.set({ group: e.target.value as FleetGroup })}
      >
        {GROUPS.map((g) => (
          <option key={g.id} value={g.id}>
            By {g.label.toLowerCase()}
          </option>
        ))}
      </select>
      <select
        id="fleet-density"
        aria-label="Rows"
        data-testid="fleet-density"
        value={v.density}
        title="Auto: one line a session from 30 sessions on"
        onChange={(e) => v.set({ density: e.target.value as Density })}
      >
        {DENSITIES.map((d) => (
          <option key={d.id} value={d.id}>
            Rows: {d.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** Runs `act` for every picked session; one error line for those that failed. */
async function each(keys: string[], act: (key: string) => Promise<unknown>, done: string): Promise<void> {
  const results = await Promise.allSettled(keys.map(act));
  const failed = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
  if (failed.length)
    useUi
      .getState()
      .setError(`${failed.length} of ${keys.length} failed: ${errorMessage(failed[0]!.reason)}`);
  else useUi.getState().flash(done);
  useFleetView.getState().clearPicked();
}

export function BulkBar({ shown }: { shown: string[] }) {
  const picked = useFleetView((s) => s.picked);
  if (picked.size === 0) return null;
  const keys = [...picked];
  const n = keys.length;
  const sessions = useFleet.getState().sessions;
  const finished = keys.filter((k) => {
    const st = sessions[k]?.status.status;
    return st === 'done_unseen' || st === 'idle' || st === 'failed';
  });
  const running = keys.filter((k) => sessions[k]?.status.status === 'running');
  return (
    <div className="bulk-bar" role="toolbar" aria-label="Picked sessions" data-testid="bulk-bar">
      <span data-testid="bulk-count">{n} picked</span>
      <button
        type="button"
        className="link"
        data-testid="bulk-pick-all"
        onClick={() => useFleetView.getState().pick(shown)}
      >
        all {shown.length} shown
      </button>
      <button
        type="button"
        data-testid="bulk-seen"
        onClick={() => void each(keys, (k) => call('sessions:seen', { sessionKey: k }), `Marked ${n} seen.`)}
      >
        Mark seen
      </button>
      <button
        type="button"
        data-testid="bulk-archive"
        disabled={finished.length === 0}
        title="Archive the picked sessions that are not running or waiting (nothing is deleted)"
        onClick={() =>
          void each(
            finished,
            (k) => call('sessions:archive', { sessionKey: k, archived: true }),
            `Archived ${finished.length}.`,
          )
        }
      >
        Archive finished ({finished.length})
      </button>
      <button
        type="button"
        className="danger"
        data-testid="bulk-cancel"
        disabled={running.length === 0}
        onClick={() =>
          void each(
            running,
            (k) => call('runs:cancel', { sessionKey: k }),
            `Cancelled ${running.length} ${running.length === 1 ? 'run' : 'runs'}.`,
          )
        }
      >
        Cancel runs ({running.length})
      </button>
      <button
        type="button"
        className="quiet"
        data-testid="bulk-clear"
        onClick={() => useFleetView.getState().clearPicked()}
      >
        Clear
      </button>
    </div>
  );
}
