import type { LinkProblem } from '../../lib/api';

/** Browser mode opened without its token, or with one from an earlier run: say so, and how to fix it. */
export function LinkPage({ problem }: { problem: LinkProblem }) {
  return (
    <section className="empty-state" data-testid="link-problem" data-problem={problem}>
      <h1>
        {problem === 'no-token' ? 'This link has no access token' : 'Sightline did not accept this link'}
      </h1>
      <p>
        {problem === 'no-token'
          ? 'Browser mode opens only with the link it prints, which carries a token for this run.'
          : 'Its token may be from an earlier run of browser mode (each run makes a new one), or Sightline has stopped.'}
      </p>
      <p>
        Use the link the terminal running <code className="mono">npm run web</code> printed, or run it again
        in the project folder for a fresh one.
      </p>
    </section>
  );
}
