import './boot';
import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import './styles/trust.css';
import './styles/base.css';
import './styles/layout.css';
import './styles/session.css';
import './styles/panels.css';
import './styles/fleet.css';
import './styles/pages.css';
import './styles/agents.css';
import './styles/worktrees.css';

// The first render yields (a transition renders in slices): the socket's open event, and with it
// the snapshot request, is not held up behind it, so the gateway works while React renders.
startTransition(() => {
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
});
