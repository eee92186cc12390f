// The views beside the fleet. Only the fleet and its empty state are on the first screen, so the
// others are split out of the start-up bundle (issue 31.4: the first load compiles what it runs,
// without a code cache) and fetched once the fleet is painted (`preloadViews`), before a person
// asks for one; a view opened earlier than that shows "Loading…" for the time of one local fetch.
import { lazy, Suspense, type ComponentType, type ReactNode } from 'react';
import { selectFleetEmpty, useFleet } from '../../stores/fleet';
import { useUi } from '../../stores/ui';
import { Kbd } from '../../components/Badges';
import { EmptyState } from '../start/EmptyState';

const loaders = {
  inbox: () => import('../inbox/Inbox').then((m) => ({ default: m.Inbox })),
  search: () => import('../search/Search').then((m) => ({ default: m.Search })),
  catalog: () => import('../catalog/Catalog').then((m) => ({ default: m.Catalog })),
  settings: () => import('../settings/Settings').then((m) => ({ default: m.Settings })),
  guide: () => import('../guide/Guide').then((m) => ({ default: m.Guide })),
  session: () => import('../session/SessionPane').then((m) => ({ default: m.SessionPane })),
};

const Inbox = lazy(loaders.inbox);
const Search = lazy(loaders.search);
const Catalog = lazy(loaders.catalog);
const Settings = lazy(loaders.settings);
const Guide = lazy(loaders.guide);
const SessionPane = lazy(loaders.session) as ComponentType<{ sessionKey: string }>;

let preloaded = false;

/** Fetches every split-out view once, when the page is idle after the fleet's first paint. */
export function preloadViews(): void {
  if (preloaded) return;
  preloaded = true;
  const all = () => {
    for (const load of Object.values(loaders)) void load().catch(() => {}); // lazy() reports it on use
  };
  // After the frame that paints the fleet (rAF, then a task), when the page is idle.
  const idle = () =>
    typeof window.requestIdleCallback === 'function'
      ? window.requestIdleCallback(all, { timeout: 2000 })
      : setTimeout(all, 200);
  requestAnimationFrame(() => setTimeout(idle));
}

export function Loading({ children }: { children: ReactNode }) {
  return <Suspense fallback={<p className="pad muted">Loading…</p>}>{children}</Suspense>;
}

/** The view chosen in the top bar (the fleet's: the open session, or what to do next). */
export function MainView() {
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
