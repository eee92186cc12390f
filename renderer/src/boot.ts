// Imported first by main.tsx, so it runs before React and the app's modules are evaluated: the
// socket opens and the fleet is asked for while the rest of the bundle starts up.
import { prefetchFleet } from './stores/fleet';

prefetchFleet();
