// The fleet snapshot (`fleet:snapshot`), and the one prepared ahead for a page that is loading.
//
// A page asks for the fleet as soon as its first small script has run (renderer/src/boot.ts), a
// hundred milliseconds or so after its HTML was served; building 10,000 session views takes the
// gateway tens of milliseconds, which could sit on the page's first paint (issue 31.4). A loading
// page has it prepared meanwhile (web/page-load.ts says when); the page's request takes it. A
// prepared snapshot serves one request, and only while nothing changed: any gateway event drops it
// (so a change between it and the page's subscription cannot be missed), and so does
// PREPARED_MAX_AGE_MS.
import type { FleetSnapshot } from '../../../shared/ipc/types';
import type { DismissalStore } from '../person/dismissals';
import type { GatewayApi } from './gateway-api';
import { agentView, fleetViews } from './views';

export const PREPARED_MAX_AGE_MS = 2000;

export interface FleetSnapshots {
  /** A page is loading: build its snapshot once the current work is done. */
  prepare(): void;
  /** The prepared snapshot if it is still current, or a new one. */
  take(): FleetSnapshot;
}

export function createFleetSnapshots(
  gw: GatewayApi,
  dismissals: DismissalStore,
  now: () => number,
  clock: () => number = Date.now,
): FleetSnapshots {
  let prepared: { snapshot: FleetSnapshot; at: number } | undefined;
  let preparing: ReturnType<typeof setImmediate> | undefined;
  let watching = false;
  const build = (): FleetSnapshot => ({
    agents: gw.agents.list().map(agentView),
    sessions: fleetViews(gw, dismissals),
    generatedAt: now(),
  });
  return {
    prepare() {
      if (prepared || preparing) return;
      if (!watching) {
        watching = true;
        gw.events.on(() => (prepared = undefined));
      }
      // After the I/O in hand (the response that called for it is written first).
      preparing = setImmediate(() => {
        preparing = undefined;
        prepared = { snapshot: build(), at: clock() };
      });
    },
    take() {
      // Asked before the prepared build ran: this request builds it, once.
      if (preparing) clearImmediate(preparing);
      preparing = undefined;
      const p = prepared;
      prepared = undefined;
      return p && clock() - p.at <= PREPARED_MAX_AGE_MS ? p.snapshot : build();
    },
  };
}
