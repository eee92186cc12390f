// Settings → Retention: the gateway's fixed limits, read-only (shared/ipc/limits.ts RETENTION,
// pinned to electron/gateway/state/prune.ts by a unit test).
import { RETENTION } from '../../../../shared/ipc/limits';

const n = (x: number) => x.toLocaleString('en-US');

export function Retention() {
  const hourly =
    RETENTION.pruneEveryMinutes === 60 ? 'hourly' : `every ${RETENTION.pruneEveryMinutes} minutes`;
  return (
    <section className="settings-section" data-testid="retention">
      <h2>Retention</h2>
      <p className="muted">Fixed limits; nothing to configure.</p>
      <dl className="retention">
        <dt>Signal log</dt>
        <dd data-testid="retention-signal-log">
          {RETENTION.signalLogDays} days and {n(RETENTION.signalLogRows)} rows (for the whole database; the
          oldest go first)
        </dd>
        <dt>Cursors</dt>
        <dd data-testid="retention-cursors">expire after {RETENTION.cursorIdleDays} days untouched</dd>
        <dt>Pruning</dt>
        <dd data-testid="retention-pruning">{hourly} and at start-up</dd>
        <dt>Heartbeats</dt>
        <dd>per agent: set the heartbeat interval in each agent above (0 = off)</dd>
      </dl>
    </section>
  );
}
