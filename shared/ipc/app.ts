// The app itself: its info, its database, where secrets live.
// Declarations only; shared/ipc/types.ts re-exports every domain file.

export interface AppInfo {
  name: string;
  version: string;
  mode: 'electron' | 'web';
  dataDir: string;
  /** Where secrets live at rest (filled in by the gateway's API). */
  secrets?: SecretStorageInfo;
}

/** A rolling backup of the state database (Settings → Database). */
export interface BackupView {
  /** `sightline-<UTC time>.db`: the id `database:restore` takes. */
  name: string;
  takenAt: number;
  bytes: number;
}

/** What the app did to the database at start-up or on a restore: shown until the next launch. */
export interface DatabaseNotice {
  kind: 'damaged' | 'restored' | 'restore_failed';
  at: number;
  /** The database file. */
  path: string;
  /** damaged: what SQLite reported; restore_failed: why. */
  damage?: string[];
  /** damaged: where the damaged files were moved (…corrupt-<time>, with -wal/-shm). */
  movedTo?: string;
  /** The backup now in use; absent after damage: the app started with an empty database. */
  restoredFrom?: string;
  /** restored: where the database it replaced was kept (…replaced-<time>). */
  keptAs?: string;
  /** damaged: backups that were damaged too and skipped. */
  skipped?: string[];
}

export interface DatabaseStatus {
  path: string;
  /** Newest first. */
  backups: BackupView[];
  /** False where nothing can swap the database (the in-process API used by scripts). */
  canRestore: boolean;
  notice?: DatabaseNotice;
}

/** Where secrets (API keys, ACP profile environment values) are kept at rest. */
export interface SecretStorageInfo {
  /** True when they are encrypted with the system keyring (Electron's safeStorage). */
  sealed: boolean;
  /** A plain statement for Settings: where they are and why (always set when not sealed). */
  statement: string;
}
