// What the app did to the database, shown above everything until dismissed: a damaged file moved
// aside (with both paths) and what the app started from, or the outcome of a restore.
import { useEffect } from 'react';
import type { DatabaseNotice as Notice } from '../../../shared/ipc';
import { useDatabase } from '../stores/database';

function describe(n: Notice): string {
  switch (n.kind) {
    case 'damaged':
      return (
        `The database at ${n.path} was damaged (${n.damage?.[0] ?? 'unknown damage'}). ` +
        `It was moved to ${n.movedTo}. ` +
        (n.restoredFrom
          ? `Sightline started from the newest good backup, ${n.restoredFrom}.`
          : 'There was no good backup: Sightline started with an empty database.')
      );
    case 'restored':
      return (
        `Restored the backup ${n.restoredFrom}.` +
        (n.keptAs ? ` The database it replaced is kept at ${n.keptAs}.` : '')
      );
    case 'restore_failed':
      return `Restoring ${n.restoredFrom} failed (${n.damage?.[0] ?? 'unknown error'}); the database was left as it was.`;
  }
}

export function DatabaseNotice() {
  const notice = useDatabase((s) => s.status?.notice);
  const dismissed = useDatabase((s) => s.dismissed);
  const dismiss = useDatabase((s) => s.dismiss);
  useEffect(() => {
    // A failure here shows nothing: the notice is extra, the app works without it.
    useDatabase
      .getState()
      .load()
      .catch(() => undefined);
  }, []);
  if (!notice || dismissed) return null;
  return (
    <div
      className={notice.kind === 'restored' ? 'info-bar' : 'error-bar'}
      role="alert"
      data-testid="database-notice"
      data-kind={notice.kind}
    >
      <span>{describe(notice)}</span>
      <button type="button" className="quiet" onClick={dismiss} aria-label="Dismiss database notice">
        ×
      </button>
    </div>
  );
}
