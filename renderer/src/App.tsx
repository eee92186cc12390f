import { useFleet } from './stores/fleet';
import { useUi } from './stores/ui';
import { useStart } from './stores/start';
import { Sidebar } from './features/fleet/Sidebar';
import { ConsentPrompt } from './features/consent/ConsentPrompt';
import { DatabaseNotice } from './components/DatabaseNotice';
import { TopBar } from './features/navigation/TopBar';
import { LinkPage } from './features/navigation/LinkPage';
import { Loading, MainView } from './features/navigation/views';
import { CommandPalette } from './features/palette/CommandPalette';
import { NewSessionDialog } from './features/start/NewSessionDialog';
import { useInboxCount, useStartup } from './features/navigation/useStartup';

function ErrorBar() {
  const error = useUi((s) => s.error);
  const setError = useUi((s) => s.setError);
  if (!error) return null;
  return (
    <div className="error-bar" role="alert" data-testid="error">
      {error}
      <button type="button" className="quiet" onClick={() => setError(null)} aria-label="Dismiss error">
        ×
      </button>
    </div>
  );
}

export function App() {
  const loaded = useFleet((s) => s.loaded);
  const paletteOpen = useUi((s) => s.paletteOpen);
  const startOpen = useStart((s) => s.open);
  const flashText = useUi((s) => s.flashText);
  const inboxCount = useInboxCount();
  const linkProblem = useStartup(inboxCount);

  return (
    <div className="app" data-testid="app" data-ready={loaded ? 'true' : 'false'}>
      <TopBar inboxCount={inboxCount} />
      <DatabaseNotice />
      <ErrorBar />
      <div className="layout">
        <Sidebar />
        <main className="content">
          {loaded ? (
            <Loading>
              <MainView />
            </Loading>
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
