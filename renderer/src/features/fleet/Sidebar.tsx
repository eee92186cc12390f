import { useRef, type KeyboardEvent } from 'react';
import { useFleet } from '../../stores/fleet';
import { useUi } from '../../stores/ui';
import { AlertBadge, NoticeBadge, RunBadge, VersionBadge } from '../../components/Badges';
import { sessionTitle } from '../../lib/format';
import { useFleetTree } from './useTree';

const KIND_LABEL = {
  main: 'main',
  subagent: 'sub-agent',
  acp: 'ACP',
  adopted: 'adopted',
  other: 'session',
  bare: 'bare',
};

export function Sidebar() {
  const groups = useFleetTree();
  const filter = useFleet((s) => s.filter);
  const setFilter = useFleet((s) => s.setFilter);
  const selectedKey = useUi((s) => s.selectedKey);
  const openSession = useUi((s) => s.openSession);
  const listRef = useRef<HTMLDivElement>(null);

  // Arrow keys move between rows (roving focus); Enter opens the focused one.
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp' && e.key !== 'Home' && e.key !== 'End') return;
    const rows = [
      ...(listRef.current?.querySelectorAll<HTMLButtonElement>('[data-testid="session-row"]') ?? []),
    ];
    if (!rows.length) return;
    e.preventDefault();
    const i = rows.indexOf(document.activeElement as HTMLButtonElement);
    const next =
      e.key === 'Home'
        ? 0
        : e.key === 'End'
          ? rows.length - 1
          : e.key === 'ArrowDown'
            ? Math.min(rows.length - 1, i + 1)
            : Math.max(0, i < 0 ? 0 : i - 1);
    rows[next]?.focus();
  };

  return (
    <nav className="sidebar" aria-label="Fleet" data-testid="fleet-sidebar">
      <input
        id="fleet-filter"
        className="filter"
        data-testid="fleet-filter"
        placeholder="Filter sessions  /"
        aria-label="Filter sessions"
        value={filter}
        onChange={(e) => setFilter(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') {
            e.preventDefault();
            listRef.current?.querySelector<HTMLButtonElement>('[data-testid="session-row"]')?.focus();
          }
        }}
      />
      <div className="tree" ref={listRef} role="tree" aria-label="Agents and sessions" onKeyDown={onKeyDown}>
        {groups.map((g) => (
          <div
            key={g.agentId}
            className="agent-group"
            role="group"
            data-testid="agent-group"
            data-agent-id={g.agentId}
          >
            <div className="agent-name" title={`agent ${g.agentId}`}>
              {g.name}
              <span className="muted"> · {g.agentId}</span>
            </div>
            {g.rows.length === 0 && <div className="muted small pad">no sessions</div>}
            {g.rows.map(({ session: s, depth }) => (
              <button
                key={s.key}
                type="button"
                role="treeitem"
                aria-selected={s.key === selectedKey}
                className={`session-row${s.key === selectedKey ? ' selected' : ''}`}
                style={{ paddingLeft: 12 + depth * 16 }}
                data-testid="session-row"
                data-session-key={s.key}
                data-kind={s.kind}
                tabIndex={s.key === selectedKey || (!selectedKey && depth === 0) ? 0 : -1}
                onClick={() => openSession(s.key)}
                title={s.key}
              >
                <span className="row-main">
                  <span className="row-title">{sessionTitle(s)}</span>
                  <span className={`kind kind-${s.kind}`}>{KIND_LABEL[s.kind]}</span>
                </span>
                <span className="row-badges">
                  <RunBadge status={s.runStatus} />
                  <VersionBadge version={s.stateVersion} />
                  <NoticeBadge count={s.pendingNotices} />
                  {s.alert && <AlertBadge summary={s.alert.summary} />}
                </span>
              </button>
            ))}
          </div>
        ))}
      </div>
    </nav>
  );
}
