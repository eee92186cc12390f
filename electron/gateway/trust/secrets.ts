// Secrets at rest: agents' API keys and ACP profile environment values. In Electron they are
// encrypted with the system keyring through safeStorage (VS Code's and Signal Desktop's
// convention), injected as the small port below so the gateway never imports Electron. Where no
// keyring is available (browser mode, Linux without a secret service, where Electron would fall
// back to a hard-coded key) they are stored as they are, and `info.statement` says so plainly.
// The stores keep the sealed form; only the in-process contract (trusted code) reads plain values.

import type { SafeStorageLike, SecretsOptions } from '../types';

export type { SafeStorageLike, SecretsOptions };

const SEALED = 'sealed:v1:';
/** A plain value that happens to look sealed is stored behind this, so it reads back unchanged. */
const PLAIN = 'plain:v1:';

const UNSEALED_TAIL =
  "API keys and ACP profile environment values are stored unencrypted in the data folder's database, readable only by your user account (folder 0700, file 0600).";

export class SecretUnavailableError extends Error {
  constructor() {
    super('a stored secret is encrypted with a keyring that is not available now');
    this.name = 'SecretUnavailableError';
  }
}

export type Secrets = ReturnType<typeof createSecrets>;

export function createSecrets(opts: SecretsOptions = {}) {
  const box = opts.safeStorage;
  const platform = opts.platform ?? process.platform;
  const backend = box?.getSelectedStorageBackend?.();
  let available = false;
  try {
    available = box !== undefined && box.isEncryptionAvailable();
  } catch {
    available = false;
  }
  const realKeyring =
    available && !(platform === 'linux' && (backend === 'basic_text' || backend === 'unknown'));
  const statement = !box
    ? `Browser mode has no access to the system keyring. ${UNSEALED_TAIL}`
    : !available
      ? `The system keyring is not available. ${UNSEALED_TAIL}`
      : !realKeyring
        ? `No secret service (GNOME Keyring, KWallet) was found. ${UNSEALED_TAIL}`
        : `API keys and ACP profile environment values are encrypted with the system keyring${backend ? ` (${backend})` : ''} before they are stored.`;

  return {
    info: { sealed: realKeyring, statement },

    /** The form to store: sealed when a keyring is there, else the value itself. */
    seal(plain: string): string {
      if (plain === '') return '';
      if (realKeyring) return SEALED + box!.encryptString(plain).toString('base64');
      return plain.startsWith(SEALED) || plain.startsWith(PLAIN) ? PLAIN + plain : plain;
    },

    /** The plain value of a stored form; throws SecretUnavailableError when it cannot be opened. */
    open(stored: string): string {
      if (stored.startsWith(PLAIN)) return stored.slice(PLAIN.length);
      if (!stored.startsWith(SEALED)) return stored;
      if (!box || !available) throw new SecretUnavailableError();
      try {
        return box.decryptString(Buffer.from(stored.slice(SEALED.length), 'base64'));
      } catch {
        throw new SecretUnavailableError();
      }
    },

    /** True when `stored` should be rewritten (a plain value while a keyring is available). */
    needsSealing: (stored: string): boolean => realKeyring && stored !== '' && !stored.startsWith(SEALED),
  };
}
