// Moving a damaged database aside and putting a backup in its place. Crash-safe by construction:
// a backup is copied and checked under a side name (sightline.db.restore) first, and only a
// rename puts it in place, so at every moment sightline.db is the old file or the new one, never
// missing or half-written. The database being replaced is kept (a hard link, or a copy) as
// sightline.db.replaced-<time>; a damaged one is moved to sightline.db.corrupt-<time> with its
// -wal/-shm, named so SQLite still pairs them.
import fs from 'node:fs';
import path from 'node:path';
import { GatewayError } from '../errors';
import { fileStamp, listBackups, syncPath, type BackupInfo } from './backups';
import { DamagedDatabaseError, asDamageError, assertUndamaged } from './integrity';
import { DB_FILE } from './open';
import { openSqlite } from './sqlite';

export const RESTORE_SUFFIX = '.restore';
const SIDE_FILES = ['', '-wal', '-shm'] as const;

const dbPath = (dataDir: string) => path.join(dataDir, DB_FILE);

/** Renames the database and its -wal/-shm to `sightline.db.corrupt-<time>…`; returns the new path. */
export function moveDamagedAside(dataDir: string, at: number): string {
  const from = dbPath(dataDir);
  const to = `${from}.corrupt-${fileStamp(at)}`;
  for (const suffix of SIDE_FILES) {
    if (fs.existsSync(from + suffix)) fs.renameSync(from + suffix, to + suffix);
  }
  syncPath(dataDir);
  return to;
}

/**
 * Copies `backup` to sightline.db.restore, synced, and checks the copy (quick_check). Returns the
 * copy's path; a damaged backup is removed again and throws DamagedDatabaseError naming it.
 */
export function prepareRestore(dataDir: string, backup: BackupInfo): string {
  const side = dbPath(dataDir) + RESTORE_SUFFIX;
  removeSide(side);
  fs.copyFileSync(backup.path, side);
  fs.chmodSync(side, 0o600);
  let db;
  try {
    db = openSqlite(side, { fileMustExist: true });
    assertUndamaged(db, backup.path);
  } catch (err) {
    db?.close();
    removeSide(side);
    const damage = asDamageError(backup.path, err);
    throw damage instanceof DamagedDatabaseError ? damage : err;
  }
  db.close();
  syncPath(side);
  return side;
}

/** The backup `name`, checked and copied next to the database (see prepareRestore). */
export function prepareNamedRestore(dataDir: string, name: string): { backup: BackupInfo; side: string } {
  const backup = listBackups(dataDir).find((b) => b.name === name);
  if (!backup) throw new GatewayError('not_found', `Unknown backup: ${name}`);
  try {
    return { backup, side: prepareRestore(dataDir, backup) };
  } catch (err) {
    if (err instanceof DamagedDatabaseError)
      throw new GatewayError('invalid_argument', `The backup ${name} is damaged too: ${err.damage[0] ?? ''}`);
    throw err;
  }
}

/** The newest backup that passes the check, already prepared; damaged ones are skipped. */
export function prepareNewestGoodBackup(
  dataDir: string,
): { backup: BackupInfo; side: string; skipped: string[] } | { skipped: string[] } {
  const skipped: string[] = [];
  for (const backup of listBackups(dataDir)) {
    try {
      return { backup, side: prepareRestore(dataDir, backup), skipped };
    } catch (err) {
      if (!(err instanceof DamagedDatabaseError)) throw err;
      skipped.push(backup.name);
    }
  }
  return { skipped };
}

/**
 * With every connection to the database closed: keeps the current database (if any) as
 * sightline.db.replaced-<time> and renames the prepared side file into place. Refuses while a
 * -wal file exists: another process still has the database open, and its log would be replayed
 * onto the restored file. Returns the kept path, if there was a database to keep.
 */
export function swapInPrepared(dataDir: string, side: string, at: number): string | undefined {
  const file = dbPath(dataDir);
  if (fs.existsSync(`${file}-wal`))
    throw new GatewayError('unavailable', `${file} is still open in another process; close it and try again`);
  let kept: string | undefined;
  if (fs.existsSync(file)) {
    kept = `${file}.replaced-${fileStamp(at)}`;
    try {
      fs.linkSync(file, kept);
    } catch {
      fs.copyFileSync(file, kept);
      syncPath(kept);
    }
  }
  fs.rmSync(`${file}-shm`, { force: true });
  fs.renameSync(side, file);
  syncPath(dataDir);
  return kept;
}

/** A side file left by an interrupted restore never took effect: remove it. */
export function removeLeftovers(dataDir: string): void {
  removeSide(dbPath(dataDir) + RESTORE_SUFFIX);
}

function removeSide(side: string): void {
  for (const suffix of SIDE_FILES) fs.rmSync(side + suffix, { force: true });
}
