// The rows of a transcript: messages (tool calls and results as fields), the notices the
// session's turns read (system lines linked to the changed session) and the running step's
// output as it streams.
import { useState } from 'react';
import type { LiveOutput, NoticeDelivery, TranscriptMessage } from '../../../../shared/ipc';
import { settledText } from '../../../../shared/activity';
import { useUi } from '../../stores/ui';
import { time } from '../../lib/format';
import { EXPLAIN } from '../../lib/explain';
import { SessionName } from '../../components/SessionName';
import { parseStructured, StructuredValue } from '../../components/Fields';
import { DiffView } from './DiffView';

/** The catalog's tools by id, for messages read from their transcripts. */
const UPSTREAM_TOOL: Record<string, string> = {
  claude: 'Claude Code',
  codex: 'Codex CLI',
  opencode: 'OpenCode',
  pi: 'Pi',
};

export type Row =
  | { type: 'message'; m: TranscriptMessage }
  | { type: 'notice'; n: NoticeDelivery }
  | { type: 'live'; step: LiveOutput };

/** Messages in order, each notice after the message its turn had read up to, the live step last. */
export function buildRows(
  messages: TranscriptMessage[],
  notices: NoticeDelivery[],
  live: LiveOutput | undefined,
): Row[] {
  const rows: Row[] = [];
  let n = 0;
  for (const m of messages) {
    while (n < notices.length && notices[n]!.afterMessageId < m.id)
      rows.push({ type: 'notice', n: notices[n++]! });
    rows.push({ type: 'message', m });
  }
  while (n < notices.length) rows.push({ type: 'notice', n: notices[n++]! });
  if (live && (live.text || live.thinking)) rows.push({ type: 'live', step: live });
  return rows;
}

export function rowKey(r: Row): string | number {
  return r.type === 'message' ? r.m.id : r.type === 'notice' ? `notice:${r.n.id}` : 'live';
}

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

/** A tool result's JSON as fields, its raw JSON one click away; plain text (and errors) as text. */
function Body({ m }: { m: TranscriptMessage }) {
  const [raw, setRaw] = useState(false);
  const structured = m.role === 'tool' ? parseStructured(m.text) : undefined;
  if (structured) {
    return (
      <div className="tool-result" data-testid="tool-result-fields">
        <button
          type="button"
          className="link small raw-toggle"
          data-testid="tool-result-raw-toggle"
          aria-pressed={raw}
          onClick={() => setRaw(!raw)}
        >
          {raw ? 'As fields' : 'Raw JSON'}
        </button>
        {raw ? (
          <pre className="raw-json" data-testid="tool-result-raw">
            {JSON.stringify(structured, null, 2)}
          </pre>
        ) : (
          <StructuredValue value={structured} />
        )}
      </div>
    );
  }
  return m.text ? <div className="text">{m.text}</div> : null;
}

export function Message({ m, focused }: { m: TranscriptMessage; focused: boolean }) {
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

/** A notice this session's turn read: the line itself, the changed session, and the reconcile. */
export function NoticeLine({ n }: { n: NoticeDelivery }) {
  const openSession = useUi((s) => s.openSession);
  return (
    <article className="msg msg-notice" data-testid="transcript-notice" data-target={n.target}>
      <header>
        <span className="who" title={EXPLAIN.notice}>
          Notice read by this turn
        </span>
        <time className="muted small">{time(n.drainedAt)}</time>
      </header>
      <div className="text mono small">{n.text}</div>
      <div className="small notice-links">
        <button type="button" className="link" onClick={() => openSession(n.target, 'timeline')}>
          Changed session: <SessionName sessionKey={n.target} />
        </button>
        <span className="muted" data-testid="notice-reconciled">
          {n.reconciled
            ? ` · reconciled through session_status up to #${n.reconciled.version} at ${time(n.reconciled.at)}`
            : ' · not reconciled yet'}
        </span>
      </div>
    </article>
  );
}

/**
 * The running step as it streams: thinking (when the model gives it), then its text, each in
 * complete lines or whole words only (settledText); thinking is whole once the text has begun.
 */
export function LiveStep({ step, sessionKey }: { step: LiveOutput; sessionKey: string }) {
  const thinking = settledText(step.thinking, step.text.length > 0).trimEnd();
  const text = settledText(step.text).trimEnd();
  return (
    <article className="msg msg-agent msg-live" data-testid="transcript-live" aria-live="polite">
      <header>
        <span className="who">
          Agent · <SessionName sessionKey={sessionKey} className="who-name" />
        </span>
        <span className="muted small live-dot">writing…</span>
      </header>
      {thinking && (
        <div className="thinking small" data-testid="live-thinking">
          {thinking}
        </div>
      )}
      {text && (
        <div className="text" data-testid="live-text">
          {text}
        </div>
      )}
    </article>
  );
}
