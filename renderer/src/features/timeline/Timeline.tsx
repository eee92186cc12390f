import { useEffect, useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { ACTOR_TYPES, EVENT_KINDS } from '../../../../shared/domain';
import type { StateEventRow } from '../../../../shared/ipc';
import { useTimeline } from '../../stores/timeline';
import { dateTime, time } from '../../lib/format';
import { EXPLAIN } from '../../lib/explain';

const ROW_HEIGHT = 52;

/** One row of chips, each switching one value of a filter on or off. */
function FilterChips<T extends string>(props: {
  label: string;
  values: readonly T[];
  on: readonly T[];
  testId: string;
  onToggle(v: T): void;
}) {
  return (
    <div className="chips" role="group" aria-label={props.label}>
      {props.values.map((v) => (
        <button
          key={v}
          type="button"
          className={props.on.includes(v) ? 'chip on' : 'chip'}
          aria-pressed={props.on.includes(v)}
          data-testid={`${props.testId}-${v}`}
          onClick={() => props.onToggle(v)}
        >
          {v}
        </button>
      ))}
    </div>
  );
}

/** One event: position, kind, actor, summary with its payload, time. */
function EventRow({ e, start }: { e: StateEventRow; start: number }) {
  return (
    <div
      className={`row-grid timeline-row kind-${e.kind}`}
      data-testid="timeline-row"
      data-kind={e.kind}
      data-sequence={e.sequence}
      style={{
        position: 'absolute',
        top: 0,
        left: 0,
        right: 0,
        height: ROW_HEIGHT,
        transform: `translateY(${start}px)`,
      }}
    >
      <span className="mono" title={EXPLAIN.position}>
        #{e.sequence}
      </span>
      <span className={`kind-tag kind-${e.kind}`}>{e.kind}</span>
      <span className={`actor actor-${e.actorType}`} title={e.actorId ?? ''}>
        {e.actorType}
        {e.actorId ? <span className="muted small block mono">{e.actorId}</span> : null}
      </span>
      <span className="summary">
        <span data-testid="timeline-summary">{e.summary}</span>
        {e.payload && (
          <code
            className="payload block"
            data-testid="timeline-payload"
            title={JSON.stringify(e.payload, null, 2)}
          >
            {JSON.stringify(e.payload)}
          </code>
        )}
      </span>
      <time className="muted small" title={dateTime(e.occurredAt)}>
        {time(e.occurredAt)}
      </time>
    </div>
  );
}

export function Timeline() {
  const events = useTimeline((s) => s.events);
  const hasMore = useTimeline((s) => s.hasMore);
  const loading = useTimeline((s) => s.loading);
  const kinds = useTimeline((s) => s.kinds);
  const actorTypes = useTimeline((s) => s.actorTypes);
  const toggleKind = useTimeline((s) => s.toggleKind);
  const toggleActor = useTimeline((s) => s.toggleActor);
  const loadOlder = useTimeline((s) => s.loadOlder);
  const scrollRef = useRef<HTMLDivElement>(null);

  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualizer is read during render by design
  const virtualizer = useVirtualizer({
    count: events.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items[items.length - 1]?.index ?? -1;

  useEffect(() => {
    if (hasMore && !loading && lastIndex >= events.length - 5) void loadOlder();
  }, [lastIndex, events.length, hasMore, loading, loadOlder]);

  return (
    <section className="timeline" data-testid="timeline" data-ready={loading ? 'false' : 'true'}>
      <FilterChips
        label="Filter by kind"
        values={EVENT_KINDS}
        on={kinds}
        testId="filter-kind"
        onToggle={toggleKind}
      />
      <FilterChips
        label="Filter by actor"
        values={ACTOR_TYPES}
        on={actorTypes}
        testId="filter-actor"
        onToggle={toggleActor}
      />
      <div className="timeline-head row-grid muted small" aria-hidden>
        <span title={EXPLAIN.position}>#</span>
        <span>kind</span>
        <span>actor</span>
        <span>summary · payload</span>
        <span>time</span>
      </div>
      <div
        className="timeline-scroll"
        ref={scrollRef}
        tabIndex={0}
        aria-label="Signal log"
        data-count={events.length}
      >
        {!loading && events.length === 0 && (
          <p className="muted pad" data-testid="timeline-empty">
            No events in the signal log yet. It records who changed this session (a human message, a goal, a
            child spawned, a run ending), never the message text.
          </p>
        )}
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {items.map((v) => (
            <EventRow key={events[v.index]!.sequence} e={events[v.index]!} start={v.start} />
          ))}
        </div>
      </div>
    </section>
  );
}
