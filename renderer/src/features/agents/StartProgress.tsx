// While an agent's start check runs, what it is doing: the command, initialize, session/new, the
// last lines of its stderr, and how long it has waited — never a silent wait.
import { useEffect, useState } from 'react';
import type { AcpStartProgress } from '../../../../shared/ipc';
import { subscribe } from '../../lib/api';

const STDERR_SHOWN = 6;

/** Mounted while the start check runs (the error that ends it shows the stderr itself). */
export function StartProgress({ agentId }: { agentId: string }) {
  const [steps, setSteps] = useState<AcpStartProgress[]>([]);
  const [since] = useState(() => Date.now());
  const [now, setNow] = useState(since);
  useEffect(() => {
    const off = subscribe((batch) => {
      const mine = batch.events.flatMap((e) =>
        e.type === 'acp:progress' && e.progress.agentId === agentId ? [e.progress] : [],
      );
      if (mine.length) setSteps((s) => [...s, ...mine]);
    });
    const tick = setInterval(() => setNow(Date.now()), 1_000);
    return () => {
      off();
      clearInterval(tick);
    };
  }, [agentId]);
  const main = steps.filter((s) => s.stage !== 'stderr');
  const stderr = steps.filter((s) => s.stage === 'stderr').slice(-STDERR_SHOWN);
  const last = main.at(-1);
  const waiting =
    !last || last.stage === 'spawning'
      ? 'starting the agent (npx and uvx download the package on first use)'
      : last.stage === 'initialize'
        ? 'waiting for its answer to initialize'
        : last.stage === 'session/new'
          ? 'waiting for its answer to session/new'
          : 'it answered';
  return (
    <div className="start-progress small" role="status" data-testid="start-progress">
      <div data-testid="start-progress-now">
        {waiting} — {Math.round((now - since) / 1000)} s
      </div>
      <ol>
        {main.map((s, i) => (
          <li key={i} data-stage={s.stage}>
            <span className="muted">{(s.elapsedMs / 1000).toFixed(1)} s</span> {s.stage}: {s.text}
          </li>
        ))}
      </ol>
      {stderr.length > 0 && (
        <pre className="mono stderr" data-testid="start-progress-stderr">
          {stderr.map((s) => s.text).join('\n')}
        </pre>
      )}
    </div>
  );
}
