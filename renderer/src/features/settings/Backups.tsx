// Settings → Database: where the database lives, its rolling daily backups (three kept), and
// restoring one. A restore asks once more, then the gateway checks the backup, swaps it in
// (keeping the replaced database beside it) and the page reloads.
import { useEffect, useState } from 'react';
import { useDatabase } from '../../stores/database';
import { errorMessage } from '../../lib/api';

const size = (bytes: number) =>
  bytes >= 1_048_576 ? `${(bytes / 1_048_576).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;

export function Backups() {
  const status = useDatabase((s) => s.status);
  const restoring = useDatabase((s) => s.restoring);
  const restore = useDatabase((s) => s.restore);
  const [confirm, setConfirm] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    useDatabase
      .getState()
      .load()
      .catch((err: unknown) => setError(errorMessage(err)));
  }, []);
  if (!status) return null;
  return (
    <section className="settings-section" data-testid="backups">
      <h2>Database</h2>
      <p className="muted small">
        <span className="mono" data-testid="database-path">
          {status.path}
        </span>{' '}
        — backed up once a day; the newest three backups are kept.
      </p>
      {status.backups.length === 0 && <p className="empty-note">No backup yet.</p>}
      <ul className="profile-list">
        {status.backups.map((b) => (
          <li key={b.name} className="inline" data-testid="backup" data-name={b.name}>
            <span>{new Date(b.takenAt).toLocaleString()}</span>
            <span className="muted small">{size(b.bytes)}</span>
            {status.canRestore &&
              (confirm === b.name ? (
                <>
                  <button
                    type="button"
                    className="primary"
                    data-testid="backup-restore-confirm"
                    disabled={restoring !== undefined}
                    onClick={() => {
                      setError(null);
                      restore(b.name).catch((err: unknown) => setError(errorMessage(err)));
                    }}
                  >
                    {restoring === b.name ? 'Restoring…' : 'Replace the database with this backup'}
                  </button>
                  <button type="button" className="quiet" onClick={() => setConfirm(null)}>
                    Cancel
                  </button>
                </>
              ) : (
                <button
                  type="button"
                  data-testid="backup-restore"
                  disabled={restoring !== undefined}
                  onClick={() => setConfirm(b.name)}
                >
                  Restore…
                </button>
              ))}
          </li>
        ))}
      </ul>
      {error && (
        <p className="form-error" role="alert" data-testid="backup-error">
          {error}
        </p>
      )}
    </section>
  );
}
