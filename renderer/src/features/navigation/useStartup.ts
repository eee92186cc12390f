import { useEffect, useState } from 'react';
import { useFleet } from '../../stores/fleet';
import { useInbox } from '../../stores/inbox';
import { usePermissions } from '../../stores/permissions';
import { useConsent } from '../../stores/consent';
import { usePreferences } from '../../stores/preferences';
import { useUi } from '../../stores/ui';
import { startLive } from '../../stores/wiring';
import { startNotifications } from '../../stores/notify';
import { errorMessage, onLinkProblem, type LinkProblem } from '../../lib/api';
import { onGlobalKey } from '../shortcuts/keyboard';
import { windowTitle } from '../../../../shared/notification-policy';
import { usePlaceInUrl } from './usePlace';
import { preloadViews } from './views';

/** What waits for the person: counted in the nav, the window title and (Electron) the dock badge. */
export function useInboxCount(): number {
  // A finished run not seen yet is listed in the Inbox but does not wait for the person.
  const queuedCount = useInbox((s) => s.items.filter((i) => i.type !== 'done_unseen').length);
  const permissionCount = usePermissions((s) => s.requests.length);
  return queuedCount + permissionCount;
}

/**
 * The app's start: pushed events wired to the stores, the first reads, the global keys, the
 * address bar, the window title and notifications. Returns a problem with the link the page was
 * opened with (browser mode), if any.
 */
export function useStartup(inboxCount: number): LinkProblem | undefined {
  const loaded = useFleet((s) => s.loaded);
  const mode = useUi((s) => s.app?.mode);
  useEffect(() => (mode ? startNotifications(mode) : undefined), [mode]);
  const [linkProblem, setLinkProblem] = useState<LinkProblem>();
  useEffect(() => onLinkProblem(setLinkProblem), []);
  usePlaceInUrl(loaded);
  useEffect(() => {
    document.title = windowTitle(inboxCount);
  }, [inboxCount]);
  useEffect(() => {
    if (loaded) preloadViews();
  }, [loaded]);
  useEffect(() => {
    const stop = startLive();
    const fail = (err: unknown) => useUi.getState().setError(errorMessage(err));
    useFleet.getState().firstLoad().catch(fail);
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
  }, []);
  return linkProblem;
}
