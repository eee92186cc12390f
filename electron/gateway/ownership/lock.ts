// A gateway's liveness lock: a small SQLite file of its own, `<dataDir>/gateways/<id>.lock`,
// opened with locking_mode=EXCLUSIVE and written once, so the connection holds SQLite's EXCLUSIVE
// file lock for as long as it is open. The lock is the operating system's (POSIX advisory locks,
// LockFileEx on Windows): the OS releases it when the process ends, SIGKILL included, and no
// timer or clock decides anything. Another gateway probes it with a read that must not wait: busy
// means alive, free or missing means the gateway is gone. SQLite also keeps the books for several
// connections of one process, so a probe sees the lock of a gateway in the same process too
// (tests run two gateways side by side). No native dependency beyond better-sqlite3.
import fs from 'node:fs';
import path from 'node:path';
import { openSqlite, type Db } from '../db/sqlite';

export const LOCK_DIR = 'gateways';

/** Gateway ids are UUIDs: an id read from the database becomes a file name only in this shape. */
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const lockPath = (dataDir: string, id: string): string => {
  if (!ID.test(id)) throw new Error(`not a gateway id: ${JSON.stringify(id.slice(0, 80))}`);
  return path.join(dataDir, LOCK_DIR, `${id}.lock`);
};

export interface HeldLock {
  /** Releases the lock (the gateway is gone for everyone else from now on). */
  release(): void;
}

export function acquireLock(dataDir: string, id: string): HeldLock {
  const file = lockPath(dataDir, id);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const db: Db = openSqlite(file, { timeout: 0 });
  try {
    // No journal file beside it; the lock file's content never matters.
    db.pragma('journal_mode = MEMORY');
    db.pragma('locking_mode = EXCLUSIVE');
    // The first write in EXCLUSIVE locking mode takes the EXCLUSIVE lock and keeps it.
    db.exec('BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS held (id TEXT); COMMIT;');
  } catch (err) {
    db.close();
    throw err;
  }
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      db.close();
    },
  };
}

export type LockState = 'held' | 'free' | 'unknown';

/**
 * Whether gateway `id` still holds its lock. 'free' also for a missing file or a malformed id
 * (nothing can hold it); 'unknown' when the probe itself failed (then nobody claims anything).
 */
export function probeLock(dataDir: string, id: string): LockState {
  let file: string;
  try {
    file = lockPath(dataDir, id);
  } catch {
    return 'free';
  }
  let db: Db | undefined;
  try {
    db = openSqlite(file, { fileMustExist: true, readonly: true, timeout: 0 });
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    return 'free';
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return 'held';
    if (code === 'SQLITE_CANTOPEN' || !fs.existsSync(file)) return 'free';
    return 'unknown';
  } finally {
    db?.close();
  }
}

/** Removes the lock file of a gateway found gone (best effort: a leftover file is harmless). */
export function removeLockFile(dataDir: string, id: string): void {
  try {
    fs.rmSync(lockPath(dataDir, id), { force: true });
  } catch {
    // Malformed id or a file system that refuses: the next claimer tries again.
  }
}
