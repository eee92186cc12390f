// The address bar names what is open (`#view=session&session=<key>&tab=timeline`), so a reload
// or a shared link comes back to the same place. The fragment never reaches a server; browser
// mode's `token` parameter rides in it only until the page has taken it (api.ts).
export const VIEWS = ['session', 'inbox', 'search', 'catalog', 'settings', 'guide'] as const;
export const TABS = ['transcript', 'timeline', 'watchers', 'changes'] as const;

export interface Place {
  view: (typeof VIEWS)[number];
  session?: string;
  tab?: (typeof TABS)[number];
}

/** What the fragment names; anything it holds is parsed, unknown values are dropped. */
export function readPlace(hash: string): Place | undefined {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const view = VIEWS.find((v) => v === p.get('view'));
  if (!view) return undefined;
  const session = p.get('session') ?? undefined;
  const tab = TABS.find((t) => t === p.get('tab'));
  return {
    view,
    ...(session && session.length <= 512 ? { session } : {}),
    ...(tab ? { tab } : {}),
  };
}

export function placeHash(place: Place): string {
  const p = new URLSearchParams({ view: place.view });
  if (place.view === 'session' && place.session) {
    p.set('session', place.session);
    if (place.tab) p.set('tab', place.tab);
  }
  return `#${p.toString()}`;
}
