// Opening the state database: one file in the data dir, WAL, foreign keys, a busy timeout, an
// integrity check (a damaged file throws DamagedDatabaseError), and every pending migration
// applied before anyone touches it.
import fs from 'node:fs';
import path from 'node:path';
import { asDamageError, assertUndamaged } from './integrity';
import { migrate } from './migrate';
import { MIGRATIONS } from './migrations';
import { openSqlite, type Db } from './sqlite';

export type { Db };

export const DB_FILE = 'sightline.db';

export interface OpenOptions {
  readonly?: boolean;
}

export function openDatabase(dataDir: string, opts: OpenOptions = {}): Db {
  // Transcripts and provider keys live here: readable by this user only.
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodQuietly(dataDir, 0o700); // also a folder that existed with looser bits
  const file = path.join(dataDir, DB_FILE);
  let db: Db | undefined;
  try {
    db = openSqlite(file, opts.readonly ? { readonly: true, fileMustExist: true } : {});
    if (!opts.readonly) restrictToOwner(file);
    applyPragmas(db);
    // Before anything reads or migrates it: a damaged file is reported, never half-used.
    assertUndamaged(db, file);
    if (!opts.readonly) migrate(db, MIGRATIONS);
    return db;
  } catch (err) {
    db?.close();
    throw asDamageError(file, err);
  }
}

export function applyPragmas(db: Db): void {
  db.pragma('journal_mode = WAL');
  // NORMAL is durable across application crashes in WAL mode; only an OS crash can lose the
  // last commits, never corrupt the file.
  db.pragma('synchronous = NORMAL');
  // A checkpoint every 10,000 WAL pages (about 40 MB), not SQLite's default 1,000. Commits never
  // wait for the disk in WAL mode with NORMAL; checkpoints do (two fsyncs, 2–3 ms each here), and
  // with the default an append paid ~45 µs on average for them, more than for everything else it
  // writes. Fewer checkpoints also copy each hot page (heads, cursors, index leaves) back fewer
  // times. The price: a WAL file of up to ~40 MB beside the database (docs/perf.md).
  db.pragma('wal_autocheckpoint = 10000');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
}

/** The database file and its WAL are 0600. */
function restrictToOwner(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) chmodQuietly(f, 0o600);
}

/** Best effort: some file systems ignore modes or refuse chmod; that is not fatal. */
function chmodQuietly(file: string, mode: number): void {
  try {
    if (fs.existsSync(file)) fs.chmodSync(file, mode);
  } catch {
    // A shared or exotic file system: the modes are what they are.
  }
}
