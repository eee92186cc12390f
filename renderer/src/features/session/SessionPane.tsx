import { useEffect } from 'react';
import { useFleet } from '../../stores/fleet';
import { useTranscript } from '../../stores/transcript';
import { useTimeline } from '../../stores/timeline';
import { useWatchers } from '../../stores/watchers';
import { useUi, type SessionTab } from '../../stores/ui';
import { AlertBadge, Kbd, NoticeBadge, RunBadge, VersionBadge } from '../../components/Badges';
import { errorMessage } from '../../lib/api';
import { sessionTitle, tokens } from '../../lib/format';
import { Transcript } from './Transcript';
import { SessionActions } from './SessionActions';
import { FilesChanged } from './FilesChanged';
import { Composer } from './Composer';
import { GoalEditor } from './GoalEditor';
import { Timeline } from '../timeline/Timeline';
import { WatchersPanel } from '../watchers/WatchersPanel';
import { PermissionBanner } from '../acp/PermissionPrompt';

const TABS: { id: SessionTab; label: string; key: string }[] = [
  { id: 'transcript', label: 'Transcript', key: '1' },
  { id: 'timeline', label: 'Signal log', key: '2' },
  { id: 'watchers', label: 'Watchers', key: '3' },
];

export function SessionPane({ sessionKey }: { sessionKey: string }) {
  const s = useFleet((st) => st.sessions[sessionKey]);
  const tab = useUi((st) => st.tab);
  const setTab = useUi((st) => st.setTab);
  const setError = useUi((st) => st.setError);
  const cancelRun = useTranscript((st) => st.cancelRun);

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
        <div>
          <h1>{sessionTitle(s)}</h1>
          <div className="muted small mono" data-testid="session-key">
            {s.key}
          </div>
          {s.cwd && (
            <div className="muted small mono" data-testid="session-cwd" title="Working folder">
              {s.cwd}
            </div>
          )}
        </div>
        <div className="session-meta">
          <RunBadge status={s.runStatus} />
          <VersionBadge version={s.stateVersion} />
          <NoticeBadge count={s.pendingNotices} />
          <FilesChanged sessionKey={s.key} />
          {s.alert && <AlertBadge summary={s.alert.summary} />}
          <span
            className="badge tokens"
            data-testid="token-usage"
            title="Tokens over all runs of this session (input / output)"
          >
            {tokens(s.tokens.input)} in · {tokens(s.tokens.output)} out
          </span>
          <button
            type="button"
            className="danger"
            data-testid="cancel-run"
            disabled={!active}
            onClick={() => cancelRun().catch((err: unknown) => setError(errorMessage(err)))}
          >
            Cancel run
          </button>
        </div>
      </header>
      <SessionActions s={s} />
      <GoalEditor key={`${s.key}:${s.goal?.updatedAt ?? 0}`} sessionKey={s.key} goal={s.goal} />
      <PermissionBanner sessionKey={s.key} />
      <div className="tabs" role="tablist" aria-label="Session views">
        {TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            aria-selected={tab === t.id}
            className={tab === t.id ? 'tab active' : 'tab'}
            data-testid={`tab-${t.id}`}
            onClick={() => setTab(t.id)}
          >
            {t.label} <Kbd>{t.key}</Kbd>
          </button>
        ))}
      </div>
      <div className="tab-body" role="tabpanel">
        {tab === 'transcript' && (
          <>
            <Transcript />
            <Composer />
          </>
        )}
        {tab === 'timeline' && <Timeline />}
        {tab === 'watchers' && <WatchersPanel />}
      </div>
    </section>
  );
}
