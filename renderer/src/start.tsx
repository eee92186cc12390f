// The app itself, imported by main.tsx once it has asked for the fleet (see main.tsx).
import { StrictMode, startTransition } from 'react';
import { flushSync } from 'react-dom';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { useFleet } from './stores/fleet';

/**
 * How long the first render waits for the fleet asked for at boot. With it in hand the app
 * renders and lays out once, with the fleet, instead of an empty frame first and the fleet in a
 * second full render (issue 31.4). A slow or failing gateway still gets the app, saying
 * "Connecting…", after this.
 */
const FIRST_RENDER_WAIT_MS = 400;

const root = createRoot(document.getElementById('root')!);
const render = () =>
  root.render(
    <StrictMode>
      <App />
    </StrictMode>,
  );

const wait = new Promise<void>((resolve) => setTimeout(resolve, FIRST_RENDER_WAIT_MS));
void Promise.race([useFleet.getState().firstLoad(), wait])
  .catch(() => {}) // useStartup reports a failed load
  .then(() => {
    // With the fleet, render in this task (React would otherwise schedule it as a task of its own,
    // which the browser may run a frame later). Without it the first render yields (a transition
    // renders in slices), so the socket's answer is not held up behind it.
    if (useFleet.getState().loaded) flushSync(render);
    else startTransition(render);
  });
