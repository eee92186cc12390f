// Imported first by main.tsx, so it runs before React and the app's modules are evaluated: the
// socket opens and the fleet is asked for while the rest of the bundle starts up. Pushes that
// arrive before the app subscribes are held for it (lib/api.ts).
import { holdPushes } from './lib/api';
import { prefetchFleet } from './stores/fleet';

holdPushes();
prefetchFleet();
