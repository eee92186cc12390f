// The top bar: the views (the Inbox with what waits for the person), New session, the guide,
// the theme and the command palette.
import { useUi, type View } from '../../stores/ui';
import { useStart } from '../../stores/start';
import { Kbd } from '../../components/Badges';
import { ThemeToggle } from '../../components/ThemeToggle';

const NAV: { view: View; label: string; key: string }[] = [
  { view: 'session', label: 'Fleet', key: 'j/k' },
  { view: 'inbox', label: 'Inbox', key: 'i' },
  { view: 'search', label: 'Search', key: 'f' },
  { view: 'catalog', label: 'Catalog', key: 'c' },
  { view: 'settings', label: 'Settings', key: 's' },
];

/** `inboxCount`: what waits for the person (also in the window title and the dock badge). */
export function TopBar({ inboxCount }: { inboxCount: number }) {
  const view = useUi((s) => s.view);
  const setView = useUi((s) => s.setView);
  const setPalette = useUi((s) => s.setPalette);
  return (
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
  );
}
