import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { prefetchFleet } from './stores/fleet';
import './styles/trust.css';
import './styles/base.css';
import './styles/layout.css';
import './styles/session.css';
import './styles/panels.css';
import './styles/fleet.css';
import './styles/pages.css';

prefetchFleet();
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
