import { useEffect } from 'react';
import { useFleet } from '../../stores/fleet';
import { useUi } from '../../stores/ui';
import { placeHash, readPlace } from '../../lib/location';
import { keepToken } from '../../lib/api';

/**
 * Keeps the address bar naming the open view, session and tab, and opens what it names once the
 * fleet is loaded (a reload, a shared link). A session that no longer exists opens the fleet.
 */
export function usePlaceInUrl(loaded: boolean): void {
  useEffect(() => {
    if (!loaded) return;
    const place = readPlace(window.location.hash);
    const ui = useUi.getState();
    if (place?.view === 'session' && place.session && useFleet.getState().sessions[place.session]) {
      ui.openSession(place.session, place.tab);
    } else if (place && place.view !== 'session') {
      ui.setView(place.view);
    }
    const write = () => {
      keepToken(); // before the address bar is rewritten (lib/api.ts)
      const { view, selectedKey, tab } = useUi.getState();
      const hash = placeHash({ view, ...(selectedKey ? { session: selectedKey } : {}), tab });
      if (hash !== window.location.hash) {
        window.history.replaceState(null, '', window.location.pathname + window.location.search + hash);
      }
    };
    // The first write only restates the place on screen, and replacing the history entry cost
    // 8–33 ms on a busy machine (issue 31.4): it waits until the fleet's first frame is painted.
    let later: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => (later = setTimeout(write)));
    const stop = useUi.subscribe(write);
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(later);
      stop();
    };
  }, [loaded]);
}
