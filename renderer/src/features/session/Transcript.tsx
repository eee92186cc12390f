import { useEffect, useMemo, useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useTranscript } from '../../stores/transcript';
import { useLive } from '../../stores/live';
import { useUi } from '../../stores/ui';
import { buildRows, LiveStep, Message, NoticeLine, rowKey } from './TranscriptRows';

const ESTIMATE = 72;
const PAD = 12;
/** Within this many pixels of the end counts as "at the end": new messages then stay in view. */
const STICK_PX = 48;

// Virtualised like the timeline: a 10,000-message transcript renders only the rows in view.
// Rows have their own heights (measured as they render); the view follows new messages while
// it is scrolled to the end, and keeps its place when older messages are loaded above.
export function Transcript() {
  const messages = useTranscript((s) => s.messages);
  const sessionKey = useTranscript((s) => s.key);
  const hasMore = useTranscript((s) => s.hasMore);
  const loading = useTranscript((s) => s.loading);
  const loadOlder = useTranscript((s) => s.loadOlder);
  const notices = useTranscript((s) => s.notices);
  const step = useLive((s) => (sessionKey ? s.steps[sessionKey] : undefined));
  const rows = useMemo(() => buildRows(messages, notices, step), [messages, notices, step]);
  const focusedId = useUi((s) => s.focusedMessageId);
  const selectedKey = useUi((s) => s.selectedKey);
  const scrollRef = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const broughtIntoView = useRef<number | null>(null);
  const last = rows.length ? rowKey(rows[rows.length - 1]!) : undefined;
  const liveChars = (step?.text.length ?? 0) + (step?.thinking.length ?? 0);

  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualizer is read during render by design
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ESTIMATE,
    getItemKey: (i) => (rows[i] ? rowKey(rows[i]) : i),
    paddingStart: PAD,
    paddingEnd: PAD,
    overscan: 20,
  });
  const items = virtualizer.getVirtualItems();

  useEffect(() => {
    stick.current = true;
  }, [sessionKey]);

  // Follow the end while the view is scrolled to it: a new row scrolls to it.
  useEffect(() => {
    if (last !== undefined && stick.current) {
      virtualizer.scrollToIndex(rows.length - 1, { align: 'end' });
    }
  }, [last, rows.length, virtualizer]);

  // …and the live step growing (token by token) keeps the end in view: at most one layout read a
  // frame, not a virtualizer scroll per token (that forced a layout each time).
  const follow = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (!liveChars || !stick.current || follow.current !== undefined) return;
    follow.current = requestAnimationFrame(() => {
      follow.current = undefined;
      const el = scrollRef.current;
      if (el && stick.current) el.scrollTop = el.scrollHeight;
    });
  }, [liveChars]);
  useEffect(() => () => cancelAnimationFrame(follow.current ?? 0), []);

  // A search result asked for this message: load older pages until it is there, then show it once.
  useEffect(() => {
    if (focusedId === null || sessionKey !== selectedKey || loading) return;
    const index = rows.findIndex((r) => r.type === 'message' && r.m.id === focusedId);
    if (index >= 0) {
      if (broughtIntoView.current === focusedId) return;
      broughtIntoView.current = focusedId;
      stick.current = false;
      requestAnimationFrame(() => virtualizer.scrollToIndex(index, { align: 'center' }));
    } else if (hasMore && (messages[0]?.id ?? 0) > focusedId) {
      void loadOlder();
    }
  }, [focusedId, sessionKey, selectedKey, loading, messages, rows, hasMore, loadOlder, virtualizer]);

  const older = async () => {
    // The first row in view (not the overscan above it) stays in place.
    const first = rows[virtualizer.range?.startIndex ?? 0];
    const anchor = first ? rowKey(first) : undefined;
    stick.current = false;
    await loadOlder();
    const { messages: m, notices: n } = useTranscript.getState();
    const index = buildRows(m, n, undefined).findIndex((r) => rowKey(r) === anchor);
    if (index >= 0) requestAnimationFrame(() => virtualizer.scrollToIndex(index, { align: 'start' }));
  };

  return (
    <section className="transcript" data-testid="transcript" data-ready={loading ? 'false' : 'true'}>
      {hasMore && (
        <button type="button" className="link" onClick={() => void older()} data-testid="transcript-older">
          Load older messages
        </button>
      )}
      <div
        className="transcript-scroll"
        ref={scrollRef}
        tabIndex={0}
        aria-label="Transcript"
        data-testid="transcript-scroll"
        data-count={messages.length}
        onScroll={(e) => {
          const el = e.currentTarget;
          stick.current = el.scrollHeight - el.scrollTop - el.clientHeight <= STICK_PX;
        }}
      >
        {!loading && messages.length === 0 && (
          <p className="muted pad" data-testid="transcript-empty">
            No messages yet. Type below to send the first one as a human; if another session watches this one,
            it will get one notice about your step-in.
          </p>
        )}
        <div className="transcript-rows" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((v) => {
            const r = rows[v.index]!;
            return (
              <div
                key={v.key}
                className="transcript-row"
                data-index={v.index}
                ref={virtualizer.measureElement}
                style={{ transform: `translateY(${v.start}px)` }}
              >
                {r.type === 'message' && <Message m={r.m} focused={r.m.id === focusedId} />}
                {r.type === 'notice' && <NoticeLine n={r.n} />}
                {r.type === 'live' && sessionKey && <LiveStep step={r.step} sessionKey={sessionKey} />}
              </div>
            );
          })}
        </div>
      </div>
    </section>
  );
}
