// The start-up bundle's entry, kept small (issue 31.4): boot.ts opens the socket and asks for the
// fleet as soon as this little file has run, and the app's code (start.tsx: React and the
// components, fetched in parallel through the modulepreload link vite.config.ts adds to the page)
// is compiled and evaluated while the gateway builds and sends the snapshot.
import './boot';
import './styles/trust.css';
import './styles/base.css';
import './styles/layout.css';
import './styles/session.css';
import './styles/panels.css';
import './styles/fleet.css';
import './styles/pages.css';
import './styles/agents.css';
import './styles/worktrees.css';

import('./start').catch(() => {
  document.getElementById('root')!.textContent = 'Sightline could not load its code. Reload the page.';
});
