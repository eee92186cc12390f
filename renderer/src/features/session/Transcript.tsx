import { useEffect, useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { TranscriptMessage } from '../../../../shared/ipc';
import { useTranscript } from '../../stores/transcript';
import { useUi } from '../../stores/ui';
import { time } from '../../lib/format';
import { DiffView } from './DiffView';
import { SessionName } from '../../components/SessionName';
import { parseStructured, StructuredValue } from '../../components/Fields';

/** The catalog's tools by id, for messages read from their transcripts. */
const UPSTREAM_TOOL: Record<string, string> = {
  claude: 'Claude Code',
  codex: 'Codex CLI',
  opencode: 'OpenCode',
  pi: 'Pi',
};

/** Who wrote a message; session keys are shown by their label (the full key on hover). */
function Attribution({ m }: { m: TranscriptMessage }) {
  const from = (prefix: string) =>
    m.actorId ? (
      <>
        {prefix}
        <SessionName sessionKey={m.actorId} className="who-name" />
      </>
    ) : null;
  if (m.role === 'system') return <>System</>;
  if (m.role === 'tool') return <>Tool result{m.toolName ? ` · ${m.toolName}` : ''}</>;
  if (m.role === 'assistant') return <>Agent{from(' · ')}</>;
  if (m.actorType === 'human') return <>Human{m.actorId ? ` · ${m.actorId}` : ''}</>;
  if (m.actorType === 'agent') return <>Agent message{from(' from ')}</>;
  return <>System</>;
}

function actorClass(m: TranscriptMessage): string {
  if (m.role === 'system') return 'system';
  if (m.role === 'tool') return 'tool';
  if (m.role === 'assistant') return 'agent';
  if (m.actorType === 'human') return 'human';
  if (m.actorType === 'agent') return 'agent-in';
  return 'system';
}

/** A tool result's JSON as fields; plain text (and errors) as text. */
function Body({ m }: { m: TranscriptMessage }) {
  const structured = m.role === 'tool' ? parseStructured(m.text) : undefined;
  if (structured) {
    return (
      <div className="tool-result" data-testid="tool-result-fields">
        <StructuredValue value={structured} />
      </div>
    );
  }
  return m.text ? <div className="text">{m.text}</div> : null;
}

function Message({ m, focused }: { m: TranscriptMessage; focused: boolean }) {
  const cls = actorClass(m);
  return (
    <article
      className={`msg msg-${cls}${focused ? ' focused' : ''}`}
      data-testid="transcript-message"
      data-actor={cls}
      data-role={m.role}
      data-message-id={m.id}
      data-upstream={m.upstream}
      data-focused={focused ? 'true' : undefined}
    >
      <header>
        <span className="who">
          <Attribution m={m} />
        </span>
        {m.upstream && (
          <span
            className="badge upstream"
            data-testid="from-upstream"
            title="Read from the tool's own transcript by the upstream monitor"
          >
            from {UPSTREAM_TOOL[m.upstream] ?? m.upstream}
          </span>
        )}
        <time className="muted small">{time(m.createdAt)}</time>
      </header>
      <Body m={m} />
      {m.toolCalls?.map((c) => (
        <div key={c.id} className="tool-call" data-testid="tool-call">
          <span className="tool-name">→ {c.name}</span>
          {c.arguments !== null && typeof c.arguments === 'object' ? (
            <StructuredValue value={c.arguments as Record<string, unknown>} />
          ) : (
            <code>{JSON.stringify(c.arguments)}</code>
          )}
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
  const focusedId = useUi((s) => s.focusedMessageId);
  const selectedKey = useUi((s) => s.selectedKey);
  const scrollRef = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const broughtIntoView = useRef<number | null>(null);
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

  // A search result asked for this message: load older pages until it is there, then show it once.
  useEffect(() => {
    if (focusedId === null || sessionKey !== selectedKey || loading) return;
    const index = messages.findIndex((m) => m.id === focusedId);
    if (index >= 0) {
      if (broughtIntoView.current === focusedId) return;
      broughtIntoView.current = focusedId;
      stick.current = false;
      requestAnimationFrame(() => virtualizer.scrollToIndex(index, { align: 'center' }));
    } else if (hasMore && (messages[0]?.id ?? 0) > focusedId) {
      void loadOlder();
    }
  }, [focusedId, sessionKey, selectedKey, loading, messages, hasMore, loadOlder, virtualizer]);

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
        {!loading && messages.length === 0 && (
          <p className="muted pad" data-testid="transcript-empty">
            No messages yet. Type below to send the first one as a human; if another session watches this one,
            it will get one notice about your step-in.
          </p>
        )}
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
                <Message m={m} focused={m.id === focusedId} />
              </div>
            );
          })}
        </div>
      </div>
    </section>
  );
}
