import { useEffect, useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { TranscriptMessage } from '../../../../shared/ipc';
import { useTranscript } from '../../stores/transcript';
import { time } from '../../lib/format';
import { DiffView } from './DiffView';

function attribution(m: TranscriptMessage): { who: string; cls: string } {
  if (m.role === 'system') return { who: 'System', cls: 'system' };
  if (m.role === 'tool') return { who: `Tool result${m.toolName ? ` · ${m.toolName}` : ''}`, cls: 'tool' };
  if (m.role === 'assistant') return { who: `Agent${m.actorId ? ` · ${m.actorId}` : ''}`, cls: 'agent' };
  if (m.actorType === 'human') return { who: `Human${m.actorId ? ` · ${m.actorId}` : ''}`, cls: 'human' };
  if (m.actorType === 'agent')
    return { who: `Agent message${m.actorId ? ` from ${m.actorId}` : ''}`, cls: 'agent-in' };
  return { who: 'System', cls: 'system' };
}

function Message({ m }: { m: TranscriptMessage }) {
  const { who, cls } = attribution(m);
  return (
    <article
      className={`msg msg-${cls}`}
      data-testid="transcript-message"
      data-actor={cls}
      data-role={m.role}
    >
      <header>
        <span className="who">{who}</span>
        <time className="muted small">{time(m.createdAt)}</time>
      </header>
      {m.text && <div className="text">{m.text}</div>}
      {m.toolCalls?.map((c) => (
        <div key={c.id} className="tool-call" data-testid="tool-call">
          → {c.name} <code>{JSON.stringify(c.arguments)}</code>
        </div>
      ))}
      {m.diffs?.map((d) => (
        <DiffView key={d.path} diff={d} />
      ))}
    </article>
  );
}

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
  const scrollRef = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const last = messages[messages.length - 1]?.id;

  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualizer is read during render by design
  const virtualizer = useVirtualizer({
    count: messages.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ESTIMATE,
    getItemKey: (i) => messages[i]?.id ?? i,
    paddingStart: PAD,
    paddingEnd: PAD,
    overscan: 20,
  });
  const items = virtualizer.getVirtualItems();

  useEffect(() => {
    stick.current = true;
  }, [sessionKey]);

  useEffect(() => {
    if (last !== undefined && stick.current) {
      virtualizer.scrollToIndex(messages.length - 1, { align: 'end' });
    }
  }, [last, messages.length, virtualizer]);

  const older = async () => {
    // The first row in view (not the overscan above it) stays in place.
    const anchor = messages[virtualizer.range?.startIndex ?? 0]?.id;
    stick.current = false;
    await loadOlder();
    const index = useTranscript.getState().messages.findIndex((m) => m.id === anchor);
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
        {!loading && messages.length === 0 && <p className="muted pad">No messages yet.</p>}
        <div className="transcript-rows" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((v) => {
            const m = messages[v.index]!;
            return (
              <div
                key={v.key}
                className="transcript-row"
                data-index={v.index}
                ref={virtualizer.measureElement}
                style={{ transform: `translateY(${v.start}px)` }}
              >
                <Message m={m} />
              </div>
            );
          })}
        </div>
      </div>
    </section>
  );
}
