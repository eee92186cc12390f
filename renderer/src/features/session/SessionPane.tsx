import { useEffect } from 'react';
import { useFleet } from '../../stores/fleet';
import { useTranscript } from '../../stores/transcript';
import { useTimeline } from '../../stores/timeline';
import { useWatchers } from '../../stores/watchers';
import { useUi, type SessionTab } from '../../stores/ui';
import { AlertBadge, NoticeBadge, RunBadge, StatusBadge } from '../../components/Badges';
import { HeaderBadges, SessionOrigin } from './SessionOrigin';
import { StatusBanner, useMarkSeen } from './StatusBanner';
import { errorMessage } from '../../lib/api';
import { sessionTitle } from '../../lib/format';
import { Transcript } from './Transcript';
import { SessionActions } from './SessionActions';
import { FilesChanged } from './FilesChanged';
import { Composer } from './Composer';
import { GoalEditor } from './GoalEditor';
import { Timeline } from '../timeline/Timeline';
import { WatchersPanel } from '../watchers/WatchersPanel';
import { PermissionBanner } from '../acp/PermissionPrompt';
import { ChangesTab } from '../worktrees/ChangesTab';

const TABS: { id: SessionTab; label: string; key: string }[] = [
  { id: 'transcript', label: 'Transcript', key: '1' },
  { id: 'timeline', label: 'Signal log', key: '2' },
  { id: 'watchers', label: 'Watchers', key: '3' },
  { id: 'changes', label: 'Changes', key: '4' },
];

/** The session's views by name; each one's key is on hover and in the `?` list. */
function SessionTabs({ hasWorktree }: { hasWorktree: boolean }) {
  const tab = useUi((st) => st.tab);
  const setTab = useUi((st) => st.setTab);
  return (
    <div className="tabs" role="tablist" aria-label="Session views">
      {/* Changes only for a session with a worktree (or while open, after a discard). */}
      {TABS.filter((t) => t.id !== 'changes' || hasWorktree || tab === 'changes').map((t) => (
        <button
          key={t.id}
          type="button"
          role="tab"
          aria-selected={tab === t.id}
          className={tab === t.id ? 'tab active' : 'tab'}
          data-testid={`tab-${t.id}`}
          // The shortcut is a key, not a count: on hover and in the `?` list, never beside the name.
          title={`${t.label} (shortcut: press ${t.key})`}
          aria-keyshortcuts={t.key}
          onClick={() => setTab(t.id)}
        >
          {t.label}
        </button>
      ))}
    </div>
  );
}

export function SessionPane({ sessionKey }: { sessionKey: string }) {
  const s = useFleet((st) => st.sessions[sessionKey]);
  const tab = useUi((st) => st.tab);
  const setError = useUi((st) => st.setError);
  const cancelRun = useTranscript((st) => st.cancelRun);
  useMarkSeen(s);

  useEffect(() => {
    const fail = (err: unknown) => setError(errorMessage(err));
    useTranscript.getState().open(sessionKey).catch(fail);
    useTimeline.getState().open(sessionKey).catch(fail);
    useWatchers.getState().open(sessionKey).catch(fail);
  }, [sessionKey, setError]);

  if (!s) return <p className="pad muted">This session no longer exists.</p>;
  const active = s.runStatus === 'running' || s.runStatus === 'queued';

  return (
    <section className="session-pane" data-testid="session-pane" data-session-key={s.key}>
      <header className="session-header">
        <div className="session-heading">
          <h1 title={s.key}>{sessionTitle(s)}</h1>
          <SessionOrigin s={s} />
        </div>
        <div className="session-meta">
          <StatusBadge status={s.status} />
          {/* The status says running/failed/idle; the run badge adds what it cannot: cancelled, never ran. */}
          {(s.runStatus === 'cancelled' || s.runStatus === 'none') && <RunBadge status={s.runStatus} />}
          <NoticeBadge count={s.pendingNotices} />
          <FilesChanged sessionKey={s.key} />
          {s.alert && <AlertBadge summary={s.alert.summary} />}
          <HeaderBadges s={s} />
          {/* Only while a run is live: on an idle session there is nothing to cancel. */}
          {active && (
            <button
              type="button"
              className="danger"
              data-testid="cancel-run"
              onClick={() => cancelRun().catch((err: unknown) => setError(errorMessage(err)))}
            >
              Cancel run
            </button>
          )}
        </div>
      </header>
      <SessionActions s={s} />
      <GoalEditor key={`${s.key}:${s.goal?.updatedAt ?? 0}`} sessionKey={s.key} goal={s.goal} />
      <PermissionBanner sessionKey={s.key} />
      <StatusBanner s={s} />
      <SessionTabs hasWorktree={!!s.worktree} />
      <div className="tab-body" role="tabpanel">
        {tab === 'transcript' && (
          <>
            <Transcript />
            <Composer />
          </>
        )}
        {tab === 'timeline' && <Timeline />}
        {tab === 'watchers' && <WatchersPanel />}
        {tab === 'changes' && <ChangesTab sessionKey={s.key} />}
      </div>
    </section>
  );
}
