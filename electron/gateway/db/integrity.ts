// A damaged state database is a typed error, never a silent open and never an unexplained exit.
// openDatabase runs `PRAGMA quick_check` at start-up (about 0.4 s on a 50,000-event log on the
// 2-core CI machine; README "Reliability") and turns SQLite's "not a database" / "malformed"
// failures into DamagedDatabaseError, which names the file and the damage. A script that calls
// createGateway decides what to do; the app moves the files aside (db/recovery.ts).
import type { Db } from './sqlite';

export class DamagedDatabaseError extends Error {
  readonly code = 'database_damaged';
  constructor(
    /** The database file. */
    readonly path: string,
    /** What SQLite reported: quick_check's lines, or the error that stopped the open. */
    readonly damage: string[],
  ) {
    const more = damage.length > 1 ? ` (and ${damage.length - 1} more)` : '';
    super(`The state database at ${path} is damaged: ${damage[0] ?? 'unknown damage'}${more}`);
    this.name = 'DamagedDatabaseError';
  }
}

/** At most this many lines of quick_check output are kept (it can list thousands). */
const MAX_DAMAGE_LINES = 20;

/** quick_check's findings; empty when the database is fine. */
export function quickCheck(db: Db): string[] {
  const rows = db.pragma(`quick_check(${MAX_DAMAGE_LINES})`) as { quick_check: string }[];
  const lines = rows
    .flatMap((r) => String(r.quick_check).split('\n'))
    .filter((l) => l !== '' && !l.startsWith('*** in database'));
  return lines.length === 1 && lines[0] === 'ok' ? [] : lines.slice(0, MAX_DAMAGE_LINES);
}

/** SQLite's result codes for a file that is not a database or has damaged pages. */
export function isDamageError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT'));
}

/** Throws DamagedDatabaseError for `file` when quick_check finds anything. */
export function assertUndamaged(db: Db, file: string): void {
  const damage = quickCheck(db);
  if (damage.length > 0) throw new DamagedDatabaseError(file, damage);
}

/** SQLite's damage errors met while opening `file` become DamagedDatabaseError; others pass. */
export function asDamageError(file: string, err: unknown): unknown {
  if (err instanceof DamagedDatabaseError || !isDamageError(err)) return err;
  return new DamagedDatabaseError(file, [(err as Error).message]);
}
