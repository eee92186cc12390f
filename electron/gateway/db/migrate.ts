// Forward-only numbered migrations. `PRAGMA user_version` holds the applied version; pending
// steps run in one transaction, so a crash leaves the previous version intact.
//
// Foreign keys are off while migrating: a migration that rebuilds a table (create new, copy, drop
// old, rename) would otherwise cascade the drop into every row that references it (rebuilding
// `sessions` would delete every transcript). SQLite's own recipe for schema changes; the pragma
// is a no-op inside a transaction, so it is set around it. Before the commit,
// `foreign_key_check` must find nothing: a migration that leaves a dangling reference aborts,
// and the whole upgrade rolls back.
import type { Db } from './sqlite';

export interface Migration {
  version: number;
  name: string;
  up: string;
}

export class MigrationForeignKeyError extends Error {
  constructor(
    readonly version: number,
    readonly violations: { table: string; rowid: number | null; parent: string }[],
  ) {
    const first = violations
      .slice(0, 3)
      .map((v) => `${v.table} row ${v.rowid ?? '?'} → ${v.parent}`)
      .join(', ');
    super(
      `Upgrading the state database to version ${version} would leave ${violations.length} row(s) pointing at nothing (${first}); nothing was changed.`,
    );
    this.name = 'MigrationForeignKeyError';
  }
}

export class NewerDatabaseError extends Error {
  constructor(found: number, supported: number) {
    super(
      `The state database was written by a newer Sightline (schema version ${found}; this build supports up to ${supported}). Refusing to open it.`,
    );
    this.name = 'NewerDatabaseError';
  }
}

/** Applies every pending migration; returns the version the database is at. */
export function migrate(db: Db, migrations: readonly Migration[]): number {
  return migrateTo(db, migrations, migrations.length);
}

/**
 * Applies the pending migrations up to `version` (never down: a database already past it is left
 * as it is). Upgrade tests use it to build a database of an older version, fill it with data,
 * then migrate the rest of the way.
 */
export function migrateTo(db: Db, migrations: readonly Migration[], version: number): number {
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  sorted.forEach((m, i) => {
    if (m.version !== i + 1)
      throw new Error(`Migrations must be numbered 1..n without gaps (found ${m.version})`);
  });
  const latest = sorted.length;
  if (!Number.isInteger(version) || version < 0 || version > latest)
    throw new Error(`No migration to version ${version} (this build has 1..${latest})`);
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > latest) throw new NewerDatabaseError(current, latest);
  if (current >= version) return current;
  const foreignKeys = db.pragma('foreign_keys', { simple: true }) as number;
  db.pragma('foreign_keys = OFF');
  try {
    db.transaction(() => {
      for (const m of sorted.slice(current, version)) db.exec(m.up);
      const violations = db.pragma('foreign_key_check') as {
        table: string;
        rowid: number | null;
        parent: string;
      }[];
      if (violations.length > 0) throw new MigrationForeignKeyError(version, violations);
      db.pragma(`user_version = ${version}`);
    }).immediate();
  } finally {
    if (foreignKeys) db.pragma('foreign_keys = ON');
  }
  return version;
}
