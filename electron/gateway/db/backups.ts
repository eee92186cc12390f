// Rolling online backups of the state database: better-sqlite3's backup() (SQLite's online backup
// API, a consistent copy while the app keeps writing) into <dataDir>/backups/, once a day, the
// newest BACKUPS_KEPT kept and older ones removed. Timing is a function of `now()` and runs on the
// gateway's scheduler, so tests drive it with a fake clock. A backup is written to a `.partial`
// file, checked (quick_check), synced, then renamed: a crash never leaves a half-written file
// under a backup's name, and a damaged copy never rotates out a good backup.
import fs from 'node:fs';
import path from 'node:path';
import type { Scheduler } from '../scheduler';
import type { Logger } from '../types';
import { DB_FILE } from './open';
import { assertUndamaged } from './integrity';
import { openSqlite, type Db } from './sqlite';

export const BACKUP_DIR = 'backups';
export const BACKUPS_KEPT = 3;
export const BACKUP_EVERY_MS = 24 * 60 * 60 * 1000;
/** How often the service looks whether a backup is due (a day is counted from the newest one). */
export const BACKUP_CHECK_MS = 60 * 60 * 1000;

export interface BackupInfo {
  /** `sightline-<UTC time>.db`; the name is the backup's id in the contract. */
  name: string;
  path: string;
  takenAt: number;
  bytes: number;
}

const NAME = /^sightline-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z\.db$/;

/** A UTC time usable in a file name on every platform: 2026-12-03T08-51-00-000Z. */
export function fileStamp(at: number): string {
  return new Date(at).toISOString().replace(/[:.]/g, '-');
}

export function backupName(at: number): string {
  return `sightline-${fileStamp(at)}.db`;
}

/** The time a backup's name carries; undefined for any other file name. */
export function backupTime(name: string): number | undefined {
  const m = NAME.exec(name);
  if (!m) return undefined;
  const t = Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`);
  return Number.isNaN(t) ? undefined : t;
}

/** The backups in `dataDir`, newest first. */
export function listBackups(dataDir: string): BackupInfo[] {
  const dir = path.join(dataDir, BACKUP_DIR);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const out: BackupInfo[] = [];
  for (const name of names) {
    const takenAt = backupTime(name);
    if (takenAt === undefined) continue;
    const stat = fs.statSync(path.join(dir, name), { throwIfNoEntry: false });
    if (stat?.isFile()) out.push({ name, path: path.join(dir, name), takenAt, bytes: stat.size });
  }
  return out.sort((a, b) => b.takenAt - a.takenAt);
}

/** A backup is due when there is none, or the newest is a day old (or from the future). */
export function backupDue(newest: number | undefined, now: number): boolean {
  return newest === undefined || now - newest >= BACKUP_EVERY_MS || newest > now;
}

/** fsync a file or directory (directories: best effort; not every platform allows it). */
export function syncPath(p: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(p, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Windows cannot open a directory for fsync; the rename is still atomic there.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

export interface BackupService {
  /** The live database file these backups are of. */
  readonly databasePath: string;
  list(): BackupInfo[];
  /** Takes a backup now (one at a time: a second call waits for the running one). */
  takeNow(): Promise<BackupInfo>;
  /** Takes a backup when one is due; resolves to it, or undefined when none was due. */
  runIfDue(): Promise<BackupInfo | undefined>;
  /** Checks at once and then every BACKUP_CHECK_MS on the scheduler. */
  start(): void;
  stop(): void;
}

export interface BackupDeps {
  db: Db;
  dataDir: string;
  now: () => number;
  scheduler: Scheduler;
  logger: Logger;
}

export function createBackupService(deps: BackupDeps): BackupService {
  const dir = path.join(deps.dataDir, BACKUP_DIR);
  let running: Promise<BackupInfo> | undefined;
  let cancel: (() => void) | undefined;

  async function write(): Promise<BackupInfo> {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const name = backupName(deps.now());
    const final = path.join(dir, name);
    const partial = `${final}.partial`;
    try {
      await deps.db.backup(partial);
      fs.chmodSync(partial, 0o600);
      // A damaged copy (the live file went bad since start-up) must not rotate out a good one.
      const copy = openSqlite(partial, { fileMustExist: true });
      try {
        assertUndamaged(copy, partial);
      } finally {
        copy.close();
      }
      syncPath(partial);
      fs.renameSync(partial, final);
      syncPath(dir);
    } catch (err) {
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(partial + suffix, { force: true });
      throw err;
    }
    prune();
    return { name, path: final, takenAt: backupTime(name)!, bytes: fs.statSync(final).size };
  }

  /** Oldest beyond BACKUPS_KEPT removed, and `.partial` leftovers of an interrupted backup. */
  function prune(): void {
    for (const old of listBackups(deps.dataDir).slice(BACKUPS_KEPT)) fs.rmSync(old.path, { force: true });
    // One backup runs at a time and this one is renamed already: any `.partial` is a leftover.
    for (const name of fs.readdirSync(dir)) {
      if (/\.partial(-wal|-shm)?$/.test(name)) fs.rmSync(path.join(dir, name), { force: true });
    }
  }

  const service: BackupService = {
    databasePath: path.join(deps.dataDir, DB_FILE),
    list: () => listBackups(deps.dataDir),
    takeNow() {
      running ??= write().finally(() => (running = undefined));
      return running;
    },
    async runIfDue() {
      if (running) return running;
      if (!backupDue(listBackups(deps.dataDir)[0]?.takenAt, deps.now())) return undefined;
      return service.takeNow();
    },
    start() {
      if (cancel) return;
      const check = () =>
        void service.runIfDue().catch((err: unknown) => {
          // Closing the gateway aborts a running backup: not worth a warning.
          if (cancel) deps.logger.warn('backups: backup failed', { error: String(err) });
        });
      cancel = deps.scheduler.every(BACKUP_CHECK_MS, check);
      check();
    },
    stop() {
      cancel?.();
      cancel = undefined;
    },
  };
  return service;
}
