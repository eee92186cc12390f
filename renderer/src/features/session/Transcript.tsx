import { useEffect, useRef } from 'react';
import type { TranscriptMessage } from '../../../../shared/ipc';
import { useSession } from '../../stores/session';
import { time } from '../../lib/format';

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
    </article>
  );
}

export function Transcript() {
  const messages = useSession((s) => s.messages);
  const hasMore = useSession((s) => s.hasMore);
  const loading = useSession((s) => s.loading);
  const loadOlder = useSession((s) => s.loadOlder);
  const endRef = useRef<HTMLDivElement>(null);
  const last = messages[messages.length - 1]?.id;

  useEffect(() => {
    endRef.current?.scrollIntoView({ block: 'end' });
  }, [last]);

  return (
    <section
      className="transcript"
      data-testid="transcript"
      data-ready={loading ? 'false' : 'true'}
      aria-label="Transcript"
      tabIndex={0}
    >
      {hasMore && (
        <button
          type="button"
          className="link"
          onClick={() => void loadOlder()}
          data-testid="transcript-older"
        >
          Load older messages
        </button>
      )}
      {!loading && messages.length === 0 && <p className="muted pad">No messages yet.</p>}
      {messages.map((m) => (
        <Message key={m.id} m={m} />
      ))}
      <div ref={endRef} />
    </section>
  );
}
