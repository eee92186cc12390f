// One session in the fleet list, compact (one line) or comfortable (three lines). Other features
// add to a row through RowBadges only: a badge there shows in both densities.
import { memo, type MouseEvent } from 'react';
import type { AgentView, SessionView } from '../../../../shared/ipc';
import { useFleet } from '../../stores/fleet';
import { useLive } from '../../stores/live';
import { useFleetView } from '../../stores/fleet-view';
import { AlertBadge, NoticeBadge, STATUS_LOOK, StatusBadge } from '../../components/Badges';
import { age, dateTime, sessionTitle } from '../../lib/format';
import { toolOf } from './tree';
import { RowUsage } from '../session/Usage';
import { WorktreeBadge } from '../worktrees/WorktreeBadge';

const rowTooltip = (s: SessionView, status: string) =>
  `${sessionTitle(s)} — ${status}\n${s.key}\nlast change ${dateTime(s.updatedAt)}`;

export const KIND_LABEL = {
  main: 'main',
  subagent: 'sub-agent',
  acp: 'ACP',
  adopted: 'adopted',
  external: 'outside',
  other: 'session',
  bare: 'bare',
};

/** Row heights the list is laid out with (the virtualizer measures the real ones). */
export const ROW_HEIGHT = { compact: 24, comfortable: 56 };

/**
 * The extension point for a row: badges beside the title (notices, alerts; a branch, tokens or
 * cost from other features go here too). Keep each badge one short word or number.
 */
export function RowBadges({ s, tool }: { s: SessionView; tool?: string }) {
  return (
    <>
      <NoticeBadge count={s.pendingNotices} />
      <RowUsage s={s} tool={tool} />
      {s.alert && <AlertBadge summary={s.alert.summary} />}
      <WorktreeBadge s={s} />
      {s.archived && <span className="badge">archived</span>}
    </>
  );
}

export interface RowProps {
  s: SessionView;
  depth: number;
  compact: boolean;
  selected: boolean;
  focusable: boolean;
  agents: ReadonlyMap<string, AgentView>;
  onOpen(key: string): void;
}

/** The compact row: status icon, name, tool, badges, last complete line, age. */
function OneLine({
  s,
  tool,
  typing,
  activity,
}: {
  s: SessionView;
  tool: string;
  typing: boolean;
  activity?: string;
}) {
  const look = STATUS_LOOK[s.status.status];
  return (
    <span className="row-line">
      <span
        className={`status-icon status-${s.status.status}`}
        data-testid="row-status-icon"
        aria-label={look.label}
      >
        {look.icon}
      </span>
      <span className="row-title">{sessionTitle(s)}</span>
      <span className={`row-tool tool-${tool === 'scripted' ? 'scripted' : 'real'}`} data-testid="row-tool">
        {tool}
      </span>
      <RowBadges s={s} tool={tool} />
      <span className="row-activity" data-testid="row-activity">
        {typing && <span className="typing" aria-label="working" />}
        {activity}
      </span>
      <span className="row-age" data-testid="row-age">
        {age(s.updatedAt)}
      </span>
    </span>
  );
}

export const FleetRow = memo(function FleetRow({
  s: fromTree,
  depth,
  compact,
  selected,
  focusable,
  agents,
  onOpen,
}: RowProps) {
  // The tree's view may be older than the store's (badges do not rebuild the tree).
  const s = useFleet((st) => st.sessions[fromTree.key]) ?? fromTree;
  const activity = useLive((st) => st.lines[fromTree.key]) ?? s.activity;
  const picked = useFleetView((st) => st.picked.has(fromTree.key));
  const tool = toolOf(s, agents);
  const look = STATUS_LOOK[s.status.status];
  const typing = s.status.status === 'running';
  const onClick = (e: MouseEvent) => {
    // Ctrl/⌘-click picks the row for a bulk action; a plain click opens it.
    if (e.ctrlKey || e.metaKey) useFleetView.getState().toggle(s.key);
    else onOpen(s.key);
  };
  const cls = `session-row ${compact ? 'compact' : 'comfortable'}${selected ? ' selected' : ''}${picked ? ' picked' : ''}`;
  return (
    <button
      type="button"
      role="treeitem"
      aria-selected={selected}
      aria-checked={picked}
      className={cls}
      style={{ paddingLeft: 10 + depth * 14 }}
      data-testid="session-row"
      data-session-key={s.key}
      data-kind={s.kind}
      data-status={s.status.status}
      data-tool={tool}
      tabIndex={focusable ? 0 : -1}
      onClick={onClick}
      onKeyDown={(e) => {
        if (e.key === ' ') {
          e.preventDefault();
          useFleetView.getState().toggle(s.key);
        }
      }}
      // The tooltip is written when the row is pointed at or focused, not at render: the first
      // date formatted in a page loads the locale's data (12+ ms), on the fleet's first paint.
      onPointerEnter={(e) => (e.currentTarget.title = rowTooltip(s, look.label))}
      onFocus={(e) => (e.currentTarget.title = rowTooltip(s, look.label))}
    >
      {compact ? (
        <OneLine s={s} tool={tool} typing={typing} activity={activity} />
      ) : (
        <>
          <span className="row-main">
            <span className="row-title">{sessionTitle(s)}</span>
            <span className={`kind kind-${s.kind}`}>{KIND_LABEL[s.kind]}</span>
            <span
              className={`row-tool tool-${tool === 'scripted' ? 'scripted' : 'real'}`}
              data-testid="row-tool"
            >
              {tool}
            </span>
            <span className="row-age" data-testid="row-age">
              {age(s.updatedAt)}
            </span>
          </span>
          <span className="row-badges">
            <StatusBadge status={s.status} />
            <RowBadges s={s} tool={tool} />
          </span>
          <span className="row-activity" data-testid="row-activity">
            {typing && <span className="typing" aria-label="working" />}
            {activity}
          </span>
        </>
      )}
    </button>
  );
});
