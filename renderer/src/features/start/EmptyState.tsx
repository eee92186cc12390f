// The fleet's first screen before anything has run: what Sightline is and four ways to begin.
import { useFleet } from '../../stores/fleet';
import { useUi } from '../../stores/ui';
import { useStart } from '../../stores/start';
import { startDemo } from '../palette/commands';
import { Kbd } from '../../components/Badges';

export function EmptyState() {
  const starting = useFleet((s) => s.demoStarting);
  const setView = useUi((s) => s.setView);
  const dataDir = useUi((s) => s.app?.dataDir);
  return (
    <section className="empty-state" data-testid="empty-state">
      <h1>Nothing has run yet</h1>
      <p className="muted">
        Sightline watches a fleet of agent sessions and tells each one when another actor (you, or another
        agent) changed something it depends on. The sessions in the fleet list have not run. Three ways to
        begin with real agents, and a scripted demo:
      </p>
      <ol className="first-steps">
        <li>
          <button type="button" data-testid="empty-settings" onClick={() => setView('settings')}>
            Add an agent <Kbd>s</Kbd>
          </button>
          <span className="muted small">
            Real: a coding agent from the ACP registry (Claude Code, Codex, Gemini CLI…) or a model with your
            API key, in Settings.
          </span>
        </li>
        <li>
          <button type="button" data-testid="empty-new-session" onClick={() => useStart.getState().show()}>
            Start a session <Kbd>⇧N</Kbd>
          </button>
          <span className="muted small">
            Real: run an agent you added in a folder of yours, with a first message.
          </span>
        </li>
        <li>
          <button type="button" data-testid="empty-catalog" onClick={() => setView('catalog')}>
            Adopt a session found on this machine <Kbd>c</Kbd>
          </button>
          <span className="muted small">
            Real: Claude Code, Codex, OpenCode and Pi sessions already on this machine.
          </span>
        </li>
        <li>
          <button
            type="button"
            className="primary big"
            data-testid="start-demo"
            disabled={starting}
            onClick={startDemo}
          >
            {starting ? 'Starting…' : 'Start the scripted demo'}
          </button>
          <span className="muted small">
            Scripted, not a real agent: a coordinator and three workers that answer with canned text and use
            no model. No API key needed, no tokens spent. Step into a worker and watch the coordinator get one
            notice and reconcile.
          </span>
        </li>
      </ol>
      <p className="muted small">
        <button type="button" className="link" data-testid="empty-guide" onClick={() => setView('guide')}>
          How Sightline works
        </button>{' '}
        · <Kbd>Ctrl K</Kbd> for commands
        {dataDir && (
          <>
            {' '}
            · data in{' '}
            <span className="mono" data-testid="data-dir">
              {dataDir}
            </span>
          </>
        )}
      </p>
    </section>
  );
}
