import { useMemo, useRef } from 'react';
import { useVirtualizer, type Virtualizer } from '@tanstack/react-virtual';
import { useTranscript } from '../../stores/transcript';
import { useLive } from '../../stores/live';
import { useUi } from '../../stores/ui';
import { buildRows, LiveStep, Message, NoticeLine, rowKey, type Row } from './TranscriptRows';
import { useFollowEnd, useLoadOlder, useShowFocused } from './useTranscriptScroll';

const ESTIMATE = 72;
const PAD = 12;
/** Within this many pixels of the end counts as "at the end": new messages then stay in view. */
const STICK_PX = 48;

/** The rows in view, each measured as it renders. */
function VirtualRows({
  rows,
  virtualizer,
}: {
  rows: Row[];
  virtualizer: Virtualizer<HTMLDivElement, Element>;
}) {
  const sessionKey = useTranscript((s) => s.key);
  const focusedId = useUi((s) => s.focusedMessageId);
  return (
    <div className="transcript-rows" style={{ height: virtualizer.getTotalSize() }}>
      {virtualizer.getVirtualItems().map((v) => {
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
  );
}

// Virtualised like the timeline: a 10,000-message transcript renders only the rows in view.
// Rows have their own heights (measured as they render); the view follows new messages while
// it is scrolled to the end, and keeps its place when older messages are loaded above
// (useTranscriptScroll).
export function Transcript() {
  const messages = useTranscript((s) => s.messages);
  const sessionKey = useTranscript((s) => s.key);
  const hasMore = useTranscript((s) => s.hasMore);
  const loading = useTranscript((s) => s.loading);
  const notices = useTranscript((s) => s.notices);
  const step = useLive((s) => (sessionKey ? s.steps[sessionKey] : undefined));
  const rows = useMemo(() => buildRows(messages, notices, step), [messages, notices, step]);
  const scrollRef = useRef<HTMLDivElement>(null);
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
  const stickRef = useFollowEnd(virtualizer, rows, liveChars, scrollRef);
  useShowFocused(virtualizer, rows, stickRef);
  const older = useLoadOlder(virtualizer, rows, stickRef);

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
          stickRef.current = el.scrollHeight - el.scrollTop - el.clientHeight <= STICK_PX;
        }}
      >
        {!loading && messages.length === 0 && (
          <p className="muted pad" data-testid="transcript-empty">
            No messages yet. Type below to send the first one as a human; if another session watches this one,
            it will get one notice about your step-in.
          </p>
        )}
        <VirtualRows rows={rows} virtualizer={virtualizer} />
      </div>
    </section>
  );
}
