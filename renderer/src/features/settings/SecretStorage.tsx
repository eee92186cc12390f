// Settings → where secrets live: encrypted with the system keyring, or a plain statement of why
// not (browser mode, Linux without a secret service). The gateway decides; app:info says it.
import { useUi } from '../../stores/ui';

export function SecretStorage() {
  const info = useUi((s) => s.app?.secrets);
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
