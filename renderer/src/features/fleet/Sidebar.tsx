import { useEffect, useMemo, useRef, type KeyboardEvent, type RefObject } from 'react';
import { useVirtualizer, type Virtualizer } from '@tanstack/react-virtual';
import type { SessionView } from '../../../../shared/ipc';
import { selectArchivedCount, selectSessionCount, useFleet } from '../../stores/fleet';
import { useUi } from '../../stores/ui';
import { COMPACT_FROM, useFleetView } from '../../stores/fleet-view';
import { BulkBar, FleetControls } from './FleetControls';
import { FleetRow, ROW_HEIGHT } from './FleetRow';
import type { AgentGroup } from './tree';
import { useFleetTree } from './useTree';

// The fleet list is virtualised (10,000 sessions must not mean 10,000 buttons): group headings
// and session rows form one flat list of which only the visible part is rendered; rows keep
// their group wrapper so the DOM still says which agent (or folder) a row belongs to.
type Item =
  | { type: 'agent'; group: AgentGroup }
  | { type: 'empty'; group: AgentGroup }
  | { type: 'row'; group: AgentGroup; session: SessionView; depth: number };

/** Archived sessions are out of the tree; this brings them back (and says how many there are). */
function ArchivedToggle() {
  const count = useFleet(selectArchivedCount);
  const show = useFleet((s) => s.showArchived);
  const setShow = useFleet((s) => s.setShowArchived);
  if (count === 0 && !show) return null;
  return (
    <button
      type="button"
      className="link archived-toggle"
      data-testid="toggle-archived"
      aria-pressed={show}
      onClick={() => setShow(!show)}
    >
      {show ? 'Hide archived sessions' : `Show archived sessions (${count})`}
    </button>
  );
}

/** Group headings and session rows as one flat list, and where each session's row is in it. */
function flatItems(groups: AgentGroup[]): { items: Item[]; rowIndex: Map<string, number> } {
  const items: Item[] = [];
  const rowIndex = new Map<string, number>();
  for (const group of groups) {
    items.push({ type: 'agent', group });
    if (group.rows.length === 0) items.push({ type: 'empty', group });
    for (const r of group.rows) {
      rowIndex.set(r.session.key, items.length);
      items.push({ type: 'row', group, session: r.session, depth: r.depth });
    }
  }
  return { items, rowIndex };
}

/** The row a key moves focus to, from row `i` (-1: none focused) of `count`. */
function nextRow(key: string, i: number, count: number): number {
  if (key === 'Home') return 0;
  if (key === 'End') return count - 1;
  if (key === 'ArrowDown') return Math.min(count - 1, i + 1);
  return Math.max(0, i < 0 ? 0 : i - 1);
}

/** The visible items, grouped by agent (or folder) in list order. */
function visibleByGroup(
  visible: { index: number; start: number }[],
  items: Item[],
): { group: AgentGroup; items: { index: number; start: number }[] }[] {
  const byGroup: { group: AgentGroup; items: { index: number; start: number }[] }[] = [];
  for (const v of visible) {
    const group = items[v.index]!.group;
    const last = byGroup[byGroup.length - 1];
    if (last?.group === group) last.items.push({ index: v.index, start: v.start });
    else byGroup.push({ group, items: [{ index: v.index, start: v.start }] });
  }
  return byGroup;
}

/** A group's heading with its count, or the note that it has no sessions. */
function GroupHeading({ it }: { it: Exclude<Item, { type: 'row' }> }) {
  const { group } = it;
  if (it.type === 'empty') return <div className="muted small pad">no sessions</div>;
  return (
    <div className="agent-name" title={group.title} data-testid="group-heading">
      {group.name}
      <span className="muted">
        {' '}
        · {group.rows.length} {group.rows.length === 1 ? 'session' : 'sessions'}
      </span>
    </div>
  );
}

/** One-line rows from COMPACT_FROM sessions on, unless the person chose a density. */
function useCompact(): boolean {
  const density = useFleetView((s) => s.density);
  const total = useFleet(selectSessionCount);
  return density === 'compact' || (density === 'auto' && total >= COMPACT_FROM);
}

/**
 * An item's height from its ResizeObserver entry (read after layout). When a row mounts there is
 * no entry yet: it keeps the size known so far instead of reading offsetHeight, which forced a
 * layout of the whole page in the middle of the first commit (issue 31.4); the observer reports the
 * real height before the frame is painted.
 */
function measureWithoutLayout(
  el: Element,
  entry: ResizeObserverEntry | undefined,
  v: Virtualizer<HTMLDivElement, Element>,
): number {
  const box = entry?.borderBoxSize?.[0];
  if (box) return Math.round(box.blockSize);
  const i = v.indexFromElement(el);
  return v.itemSizeCache.get(v.options.getItemKey(i)) ?? v.options.estimateSize(i);
}

/** Only the visible part of the list is rendered; a change of density re-measures every row. */
function useFleetVirtualizer(items: Item[], listRef: RefObject<HTMLDivElement | null>, compact: boolean) {
  // Close to the real heights (a heading is 22 or 28 px with the app's fonts): each estimate that
  // is off re-lays the whole list out once its row is measured, a second pass on the first paint.
  const estimate = {
    agent: compact ? 22 : 28,
    empty: 24,
    row: compact ? ROW_HEIGHT.compact : ROW_HEIGHT.comfortable,
  };
  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualizer is read during render by design
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => listRef.current,
    estimateSize: (i) => estimate[items[i]!.type],
    getItemKey: (i) => {
      const it = items[i]!;
      return it.type === 'row' ? it.session.key : `${it.type}:${it.group.agentId}`;
    },
    overscan: 10,
    measureElement: measureWithoutLayout,
  });
  // Another density: every row's height changes at once. Not on mount: the list was just measured,
  // and measuring it again cost the first paint another pass over every item.
  const density = useRef(compact);
  useEffect(() => {
    if (density.current === compact) return;
    density.current = compact;
    virtualizer.measure();
  }, [compact, virtualizer]);
  return virtualizer;
}

/** Roving focus: arrow keys, Home and End move between rows (scrolled into the DOM first). */
function useRowFocus(
  listRef: RefObject<HTMLDivElement | null>,
  virtualizer: ReturnType<typeof useFleetVirtualizer>,
  rowIndex: Map<string, number>,
  rowKeys: string[],
) {
  const focusRow = (key: string) => {
    const sel = `[data-testid="session-row"][data-session-key="${CSS.escape(key)}"]`;
    const el = listRef.current?.querySelector<HTMLButtonElement>(sel);
    if (el) return el.focus();
    virtualizer.scrollToIndex(rowIndex.get(key) ?? 0, { align: 'auto' });
    requestAnimationFrame(() => listRef.current?.querySelector<HTMLButtonElement>(sel)?.focus());
  };
  // Arrow keys move between rows (roving focus); Enter opens the focused one.
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp' && e.key !== 'Home' && e.key !== 'End') return;
    if (!rowKeys.length) return;
    e.preventDefault();
    const current = (document.activeElement as HTMLElement | null)?.dataset.sessionKey;
    const i = current ? rowKeys.indexOf(current) : -1;
    focusRow(rowKeys[nextRow(e.key, i, rowKeys.length)]!);
  };
  return { focusRow, onKeyDown };
}

/** The text filter; ArrowDown goes on to the first row. */
function FleetFilter({ onFirstRow }: { onFirstRow: () => void }) {
  const filter = useFleet((s) => s.filter);
  const setFilter = useFleet((s) => s.setFilter);
  return (
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
          onFirstRow();
        }
      }}
    />
  );
}

export function Sidebar() {
  const groups = useFleetTree();
  const selectedKey = useUi((s) => s.selectedKey);
  const openSession = useUi((s) => s.openSession);
  const listRef = useRef<HTMLDivElement>(null);
  const agents = useFleet((s) => s.agents);
  const agentsById = useMemo(() => new Map(agents.map((a) => [a.id, a])), [agents]);
  const compact = useCompact();
  const { items, rowIndex } = useMemo(() => flatItems(groups), [groups]);
  const virtualizer = useFleetVirtualizer(items, listRef, compact);

  // Keep the open session's row rendered and in view (j/k, palette, inbox).
  useEffect(() => {
    const i = selectedKey ? rowIndex.get(selectedKey) : undefined;
    if (i !== undefined) virtualizer.scrollToIndex(i, { align: 'auto' });
  }, [selectedKey, rowIndex, virtualizer]);

  const rowKeys = useMemo(() => items.flatMap((it) => (it.type === 'row' ? [it.session.key] : [])), [items]);
  const { focusRow, onKeyDown } = useRowFocus(listRef, virtualizer, rowIndex, rowKeys);
  const byGroup = visibleByGroup(virtualizer.getVirtualItems(), items);

  return (
    <nav className="sidebar" aria-label="Fleet" data-testid="fleet-sidebar">
      <FleetFilter onFirstRow={() => rowKeys[0] && focusRow(rowKeys[0])} />
      <FleetControls />
      <ArchivedToggle />
      <BulkBar shown={rowKeys} />
      <div
        className={compact ? 'tree compact' : 'tree'}
        data-density={compact ? 'compact' : 'comfortable'}
        ref={listRef}
        role="tree"
        aria-label="Agents and sessions"
        onKeyDown={onKeyDown}
        data-count={rowKeys.length}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {byGroup.map(({ group, items: shown }) => (
            <div
              key={group.agentId}
              className="agent-group"
              role="group"
              data-testid="agent-group"
              data-agent-id={group.agentId}
            >
              {shown.map(({ index, start }) => {
                const it = items[index]!;
                const style = {
                  position: 'absolute' as const,
                  top: 0,
                  left: 0,
                  right: 0,
                  transform: `translateY(${start}px)`,
                };
                const key = it.type === 'row' ? it.session.key : `${it.type}:${group.agentId}`;
                return (
                  <div key={key} data-index={index} ref={virtualizer.measureElement} style={style}>
                    {it.type === 'row' ? (
                      <FleetRow
                        s={it.session}
                        depth={it.depth}
                        compact={compact}
                        agents={agentsById}
                        selected={it.session.key === selectedKey}
                        focusable={it.session.key === selectedKey || (!selectedKey && it.depth === 0)}
                        onOpen={openSession}
                      />
                    ) : (
                      <GroupHeading it={it} />
                    )}
                  </div>
                );
              })}
            </div>
          ))}
        </div>
      </div>
    </nav>
  );
}
