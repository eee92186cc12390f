import { useEffect, useRef } from 'react';
import { SEARCH_MARK, type SearchGroup, type SearchMatch } from '../../../../shared/ipc';
import { useSearch } from '../../stores/search';
import { useUi } from '../../stores/ui';
import { errorMessage } from '../../lib/api';
import { sessionTitle, time } from '../../lib/format';

/** Waits this long after the last keystroke before asking the gateway. */
const DEBOUNCE_MS = 150;

/** A matching line with its matched terms in <mark> (the gateway marks them with control characters). */
export function Marked({ line }: { line: string }) {
  const parts: { text: string; hit: boolean }[] = [];
  for (const chunk of line.split(SEARCH_MARK.start)) {
    const end = chunk.indexOf(SEARCH_MARK.end);
    if (end === -1) parts.push({ text: chunk, hit: false });
    else parts.push({ text: chunk.slice(0, end), hit: true }, { text: chunk.slice(end + 1), hit: false });
  }
  return (
    <>
      {parts.map((p, i) =>
        p.hit ? <mark key={i}>{p.text}</mark> : p.text ? <span key={i}>{p.text}</span> : null,
      )}
    </>
  );
}

const FIELD_LABEL = { label: 'label', key: 'key', message: 'message' } as const;

function MatchRow({ group, m }: { group: SearchGroup; m: SearchMatch }) {
  const openSession = useUi((s) => s.openSession);
  const focusMessage = useUi((s) => s.focusMessage);
  return (
    <li className="search-match" data-testid="search-match" data-field={m.field}>
      <button
        type="button"
        className="search-line"
        onClick={() => {
          openSession(group.sessionKey, 'transcript');
          if (m.messageId !== undefined) focusMessage(m.messageId);
        }}
      >
        <span className="badge">{m.field === 'message' && m.role ? m.role : FIELD_LABEL[m.field]}</span>
        <span className="line" data-testid="search-line">
          <Marked line={m.line} />
        </span>
        {m.createdAt !== undefined && <time className="muted small">{time(m.createdAt)}</time>}
      </button>
    </li>
  );
}

export function Search() {
  const query = useSearch((s) => s.query);
  const result = useSearch((s) => s.result);
  const loading = useSearch((s) => s.loading);
  const setQuery = useSearch((s) => s.setQuery);
  const setError = useUi((s) => s.setError);
  const inputRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    const t = setTimeout(() => {
      useSearch
        .getState()
        .run()
        .catch((err: unknown) => setError(errorMessage(err)));
    }, DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [query, setError]);

  const settled = !loading && result !== null && result.query === query.trim();
  return (
    <section className="page search" data-testid="search" data-ready={settled ? 'true' : 'false'}>
      <h1>Search</h1>
      <input
        ref={inputRef}
        autoFocus
        type="search"
        className="search-input"
        data-testid="search-input"
        aria-label="Search sessions and transcripts"
        placeholder="Words from a label, a session key or any message…"
        value={query}
        maxLength={200}
        onChange={(e) => setQuery(e.target.value)}
      />
      <p className="muted small">
        Searches every session&apos;s label and key, and the text of every transcript message (whole words and
        word beginnings; all words must occur).
      </p>
      {settled && result.groups.length === 0 && (
        <p className="empty-note" data-testid="search-empty">
          No matches for “{result.query}”.
        </p>
      )}
      {result && result.groups.length > 0 && (
        <ul className="search-results" aria-live="polite">
          {result.groups.map((g) => (
            <li
              key={g.sessionKey}
              className="search-group"
              data-testid="search-group"
              data-session-key={g.sessionKey}
            >
              <h2 title={g.sessionKey}>
                {sessionTitle({ key: g.sessionKey, label: g.label ?? '' })}{' '}
                <span className="muted small mono">{g.sessionKey}</span>
              </h2>
              <ul>
                {g.matches.map((m, i) => (
                  <MatchRow key={`${m.field}:${m.messageId ?? i}`} group={g} m={m} />
                ))}
              </ul>
              {g.more > 0 && (
                <p className="muted small" data-testid="search-more">
                  and {g.more} more message{g.more === 1 ? '' : 's'} in this session
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
      {result?.truncated && (
        <p className="muted small">Only the best matches are shown; add a word to narrow the search.</p>
      )}
    </section>
  );
}
