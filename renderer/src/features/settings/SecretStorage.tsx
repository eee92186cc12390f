// Settings → where secrets live: encrypted with the system keyring, or a plain statement of why
// not (browser mode, Linux without a secret service). The gateway decides; app:info says it.
import { useEffect, useState } from 'react';
import type { SecretStorageInfo } from '../../../../shared/ipc';
import { call, errorMessage } from '../../lib/api';

export function SecretStorage() {
  const [info, setInfo] = useState<SecretStorageInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    call('app:info', {}).then(
      (app) => setInfo(app.secrets ?? null),
      (err: unknown) => setError(errorMessage(err)),
    );
  }, []);
  if (error)
    return (
      <p className="form-error" role="alert">
        {error}
      </p>
    );
  if (!info) return null;
  return (
    <p
      className={info.sealed ? 'muted small' : 'secret-statement small'}
      data-testid="secret-storage"
      data-sealed={info.sealed ? 'true' : 'false'}
    >
      {info.statement} Sightline shows at most the last 4 characters of a stored secret.
    </p>
  );
}
