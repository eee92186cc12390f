// The app itself, imported by main.tsx once it has asked for the fleet (see main.tsx).
import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';

// The first render yields (a transition renders in slices): the socket's messages are not held
// up behind it.
startTransition(() => {
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
});
