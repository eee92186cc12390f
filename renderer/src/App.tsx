import { useEffect, useState } from 'react';
import { selectFleetEmpty, useFleet } from './stores/fleet';
import { useInbox } from './stores/inbox';
import { usePermissions } from './stores/permissions';
import { useConsent } from './stores/consent';
import { useUi, type View } from './stores/ui';
import { errorMessage, onLinkProblem, type LinkProblem } from './lib/api';
import { usePlaceInUrl } from './features/navigation/usePlace';
import { startLive } from './stores/wiring';
import { onGlobalKey } from './features/shortcuts/keyboard';
import { Sidebar } from './features/fleet/Sidebar';
import { SessionPane } from './features/session/SessionPane';
import { Inbox } from './features/inbox/Inbox';
import { Catalog } from './features/catalog/Catalog';
import { Search } from './features/search/Search';
import { Guide } from './features/guide/Guide';
import { Settings } from './features/settings/Settings';
import { CommandPalette } from './features/palette/CommandPalette';
import { NewSessionDialog } from './features/start/NewSessionDialog';
import { useStart } from './stores/start';
import { ConsentPrompt } from './features/consent/ConsentPrompt';
import { startDemo } from './features/palette/commands';
import { Kbd } from './components/Badges';
import { DatabaseNotice } from './components/DatabaseNotice';
import { ThemeToggle } from './components/ThemeToggle';
import { usePreferences } from './stores/preferences';
import { windowTitle } from '../../shared/notification-policy';
import { startNotifications } from './stores/notify';

function EmptyState() {
  const starting = useFleet((s) => s.demoStarting);
  const setView = useUi((s) => s.setView);
  const dataDir = useUi((s) => s.app?.dataDir);
  return (
    <section className="empty-state" data-testid="empty-state">
      <h1>Nothing has run yet</h1>
      <p className="muted">
        Sightline watches a fleet of agent sessions and tells each one when another actor (you, or another
        agent) changed something it depends on. The sessions in the fleet list have not run. Three ways to
        begin with real agents, and a scripted demo:
      </p>
      <ol className="first-steps">
        <li>
          <button type="button" data-testid="empty-settings" onClick={() => setView('settings')}>
            Add an agent <Kbd>s</Kbd>
          </button>
          <span className="muted small">
            Real: a coding agent from the ACP registry (Claude Code, Codex, Gemini CLI…) or a model with your
            API key, in Settings.
          </span>
        </li>
        <li>
          <button type="button" data-testid="empty-new-session" onClick={() => useStart.getState().show()}>
            Start a session <Kbd>⇧N</Kbd>
          </button>
          <span className="muted small">
            Real: run an agent you added in a folder of yours, with a first message.
          </span>
        </li>
        <li>
          <button type="button" data-testid="empty-catalog" onClick={() => setView('catalog')}>
            Adopt a session found on this machine <Kbd>c</Kbd>
          </button>
          <span className="muted small">
            Real: Claude Code, Codex, OpenCode and Pi sessions already on this machine.
          </span>
        </li>
        <li>
          <button
            type="button"
            className="primary big"
            data-testid="start-demo"
            disabled={starting}
            onClick={startDemo}
          >
            {starting ? 'Starting…' : 'Start the scripted demo'}
          </button>
          <span className="muted small">
            Scripted, not a real agent: a coordinator and three workers that answer with canned text and use
            no model. No API key needed, no tokens spent. Step into a worker and watch the coordinator get one
            notice and reconcile.
          </span>
        </li>
      </ol>
      <p className="muted small">
        <button type="button" className="link" data-testid="empty-guide" onClick={() => setView('guide')}>
          How Sightline works
        </button>{' '}
        · <Kbd>Ctrl K</Kbd> for commands
        {dataDir && (
          <>
            {' '}
            · data in{' '}
            <span className="mono" data-testid="data-dir">
              {dataDir}
            </span>
          </>
        )}
      </p>
    </section>
  );
}

/** Browser mode opened without its token, or with one from an earlier run: say so, and how to fix it. */
function LinkPage({ problem }: { problem: LinkProblem }) {
  return (
    <section className="empty-state" data-testid="link-problem" data-problem={problem}>
      <h1>
        {problem === 'no-token' ? 'This link has no access token' : 'Sightline did not accept this link'}
      </h1>
      <p>
        {problem === 'no-token'
          ? 'Browser mode opens only with the link it prints, which carries a token for this run.'
          : 'Its token may be from an earlier run of browser mode (each run makes a new one), or Sightline has stopped.'}
      </p>
      <p>
        Use the link the terminal running <code className="mono">npm run web</code> printed, or run it again
        in the project folder for a fresh one.
      </p>
    </section>
  );
}

function Main() {
  const view = useUi((s) => s.view);
  const selectedKey = useUi((s) => s.selectedKey);
  const empty = useFleet(selectFleetEmpty);
  switch (view) {
    case 'inbox':
      return <Inbox />;
    case 'search':
      return <Search />;
    case 'catalog':
      return <Catalog />;
    case 'settings':
      return <Settings />;
    case 'guide':
      return <Guide />;
    case 'session':
      if (selectedKey) return <SessionPane key={selectedKey} sessionKey={selectedKey} />;
      return empty ? (
        <EmptyState />
      ) : (
        <p className="pad muted">
          Choose a session in the fleet, or press <Kbd>n</Kbd>.
        </p>
      );
  }
}

const NAV: { view: View; label: string; key: string }[] = [
  { view: 'session', label: 'Fleet', key: 'j/k' },
  { view: 'inbox', label: 'Inbox', key: 'i' },
  { view: 'search', label: 'Search', key: 'f' },
  { view: 'catalog', label: 'Catalog', key: 'c' },
  { view: 'settings', label: 'Settings', key: 's' },
];

export function App() {
  const loaded = useFleet((s) => s.loaded);
  const view = useUi((s) => s.view);
  const setView = useUi((s) => s.setView);
  const setPalette = useUi((s) => s.setPalette);
  const paletteOpen = useUi((s) => s.paletteOpen);
  const startOpen = useStart((s) => s.open);
  const error = useUi((s) => s.error);
  const setError = useUi((s) => s.setError);
  // A finished run not seen yet is listed in the Inbox but does not wait for the person.
  const queuedCount = useInbox((s) => s.items.filter((i) => i.type !== 'done_unseen').length);
  const permissionCount = usePermissions((s) => s.requests.length);
  // What waits for the person: counted in the nav, the window title and (Electron) the dock badge.
  const inboxCount = queuedCount + permissionCount;
  const flashText = useUi((s) => s.flashText);
  const mode = useUi((s) => s.app?.mode);
  useEffect(() => (mode ? startNotifications(mode) : undefined), [mode]);
  const [linkProblem, setLinkProblem] = useState<LinkProblem>();
  useEffect(() => onLinkProblem(setLinkProblem), []);
  usePlaceInUrl(loaded);
  useEffect(() => {
    document.title = windowTitle(inboxCount);
  }, [inboxCount]);

  useEffect(() => {
    const stop = startLive();
    const fail = (err: unknown) => setError(errorMessage(err));
    useFleet.getState().load().catch(fail);
    useInbox.getState().load().catch(fail);
    usePermissions.getState().load().catch(fail);
    useConsent.getState().load().catch(fail);
    usePreferences.getState().load().catch(fail);
    useUi.getState().loadApp().catch(fail);
    window.addEventListener('keydown', onGlobalKey);
    return () => {
      stop();
      window.removeEventListener('keydown', onGlobalKey);
    };
  }, [setError]);

  return (
    <div className="app" data-testid="app" data-ready={loaded ? 'true' : 'false'}>
      <header className="topbar">
        <span className="brand">Sightline</span>
        <nav className="topnav" aria-label="Views">
          {NAV.map((n) => (
            <button
              key={n.view}
              type="button"
              className={view === n.view ? 'nav active' : 'nav'}
              aria-current={view === n.view ? 'page' : undefined}
              data-testid={`nav-${n.view}`}
              onClick={() => setView(n.view)}
            >
              {n.label}
              {n.view === 'inbox' && inboxCount > 0 && (
                <span className="badge notice" data-testid="inbox-count">
                  {inboxCount}
                </span>
              )}{' '}
              <Kbd>{n.key}</Kbd>
            </button>
          ))}
        </nav>
        <button
          type="button"
          className="primary"
          data-testid="new-session"
          onClick={() => useStart.getState().show()}
        >
          New session <Kbd>⇧N</Kbd>
        </button>
        <button
          type="button"
          className="quiet"
          data-testid="open-guide"
          title="How Sightline works (?)"
          onClick={() => setView('guide')}
        >
          How it works
        </button>
        <ThemeToggle />
        <button type="button" className="quiet" data-testid="open-palette" onClick={() => setPalette(true)}>
          Commands <Kbd>Ctrl K</Kbd>
        </button>
      </header>
      <DatabaseNotice />
      {error && (
        <div className="error-bar" role="alert" data-testid="error">
          {error}
          <button type="button" className="quiet" onClick={() => setError(null)} aria-label="Dismiss error">
            ×
          </button>
        </div>
      )}
      <div className="layout">
        <Sidebar />
        <main className="content">
          {loaded ? (
            <Main />
          ) : linkProblem ? (
            <LinkPage problem={linkProblem} />
          ) : (
            <p className="pad muted">Connecting…</p>
          )}
        </main>
      </div>
      {flashText && (
        <div className="flash" role="status" data-testid="flash">
          {flashText}
        </div>
      )}
      {paletteOpen && <CommandPalette />}
      {startOpen && <NewSessionDialog />}
      <ConsentPrompt />
    </div>
  );
}
