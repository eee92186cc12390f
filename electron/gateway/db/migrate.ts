// Forward-only numbered migrations. `PRAGMA user_version` holds the applied version; pending
// steps run in one transaction, so a crash leaves the previous version intact.
import type { Db } from './sqlite';

export interface Migration {
  version: number;
  name: string;
  up: string;
}

export class NewerDatabaseError extends Error {
  constructor(found: number, supported: number) {
    super(
      `The state database was written by a newer Sightline (schema version ${found}; this build supports up to ${supported}). Refusing to open it.`,
    );
    this.name = 'NewerDatabaseError';
  }
}

export function migrate(db: Db, migrations: readonly Migration[]): number {
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  sorted.forEach((m, i) => {
    if (m.version !== i + 1)
      throw new Error(`Migrations must be numbered 1..n without gaps (found ${m.version})`);
  });
  const latest = sorted.length;
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > latest) throw new NewerDatabaseError(current, latest);
  if (current === latest) return current;
  db.transaction(() => {
    for (const m of sorted.slice(current)) db.exec(m.up);
    db.pragma(`user_version = ${latest}`);
  }).immediate();
  return latest;
}
