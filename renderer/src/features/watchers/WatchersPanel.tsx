import type { CursorRow } from '../../../../shared/ipc';
import { useWatchers } from '../../stores/watchers';
import { useUi } from '../../stores/ui';
import { time } from '../../lib/format';
import { EXPLAIN } from '../../lib/explain';
import { SessionName } from '../../components/SessionName';

/** One cursor drawn against the head: L (last seen), N (notified), M (material), head. */
function CursorBar({ c }: { c: CursorRow }) {
  const head = Math.max(c.targetVersion, c.material, 1);
  const pct = (n: number) => `${Math.min(100, (n / head) * 100)}%`;
  return (
    <div className="cursor-bar" aria-hidden>
      <div className="track" />
      <div className="seen" style={{ width: pct(c.lastSeen) }} />
      {c.pending && (
        <div
          className="unseen"
          style={{ left: pct(c.lastSeen), width: `calc(${pct(c.material)} - ${pct(c.lastSeen)})` }}
        />
      )}
      <div className="mark mark-n" style={{ left: pct(c.notified) }} title={`N ${c.notified}`} />
    </div>
  );
}

function CursorCard({ c, other, testid }: { c: CursorRow; other: string; testid: string }) {
  const openSession = useUi((s) => s.openSession);
  return (
    <li
      className={`cursor ${c.pending ? 'pending' : ''}`}
      data-testid={testid}
      data-watcher={c.watcher}
      data-target={c.target}
    >
      <div className="cursor-top">
        {/* The other session by its label; its key is secondary (small, and on hover). */}
        <button
          type="button"
          className="link"
          data-testid="cursor-session"
          title={other}
          onClick={() => openSession(other, 'watchers')}
        >
          <SessionName sessionKey={other} />
        </button>
        <span className="muted small mono cursor-key">{other}</span>
        <span className={c.pending ? 'badge notice' : 'badge ok'}>
          {c.pending ? 'notice pending' : 'up to date'}
        </span>
      </div>
      <CursorBar c={c} />
      <dl className="positions" data-testid="cursor-positions">
        <div>
          <dt title={EXPLAIN.lastSeen}>last seen L</dt>
          <dd data-testid="cursor-L">{c.lastSeen}</dd>
        </div>
        <div>
          <dt title={EXPLAIN.notified}>notified N</dt>
          <dd data-testid="cursor-N">{c.notified}</dd>
        </div>
        <div>
          <dt title={EXPLAIN.material}>material M</dt>
          <dd data-testid="cursor-M">{c.material}</dd>
        </div>
        <div>
          <dt title={EXPLAIN.head}>head</dt>
          <dd data-testid="cursor-head">{c.targetVersion}</dd>
        </div>
        <div>
          <dt>updated</dt>
          <dd>{time(c.updatedAt)}</dd>
        </div>
      </dl>
      {c.noticeText && (
        <blockquote className="notice-text" data-testid="cursor-notice" title={EXPLAIN.notice}>
          {c.noticeText}
        </blockquote>
      )}
    </li>
  );
}

export function WatchersPanel() {
  const view = useWatchers((s) => s.view);
  if (!view)
    return (
      <p className="pad muted" data-testid="watchers" data-ready="false">
        Loading watchers…
      </p>
    );
  return (
    <section className="watchers" data-testid="watchers" data-ready="true">
      <div>
        <h2>Watched by</h2>
        <p className="muted small">
          Sessions holding a cursor on this one. Its newest event is{' '}
          <span title={EXPLAIN.position} data-testid="watchers-head">
            #{view.stateVersion}
          </span>{' '}
          in the signal log; L, N, M and head are positions (#) in that log.
        </p>
        {view.watchedBy.length === 0 && (
          <p className="muted" data-testid="no-watchers">
            No watchers. A session is watched by the session that spawned it, and by an agent that sent it a
            message with <code>watch: true</code>.
          </p>
        )}
        <ul>
          {view.watchedBy.map((c) => (
            <CursorCard key={c.watcher} c={c} other={c.watcher} testid="watched-by" />
          ))}
        </ul>
      </div>
      <div>
        <h2>Watching</h2>
        <p className="muted small">Cursors this session holds on others.</p>
        {view.watching.length === 0 && (
          <p className="muted">
            Not watching any session. Spawning a child or sending with watch makes a cursor.
          </p>
        )}
        <ul>
          {view.watching.map((c) => (
            <CursorCard key={c.target} c={c} other={c.target} testid="watching" />
          ))}
        </ul>
      </div>
    </section>
  );
}
