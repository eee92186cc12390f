// The catalog's index (issue 31, migration 020): what describe() found in each unit, kept while
// the unit's stamp is unchanged, so a listing of thousands of transcripts re-reads only the ones
// that changed (a stat per file instead of two windows and a few parsed rows). Units whose
// provider gives no stamp (OpenCode's database) are described every time. A cache: rows of units
// that are gone are dropped after the next listing, and every row can be rebuilt from the files.
// What a listing read is written after it answered, in slices of WRITE_SLICE rows with the event
// loop free between them, so a first listing of 10,000 files does not wait for 10,000 inserts.
import type Database from 'better-sqlite3';
import type { Logger } from '../types';
import type { Located } from './provider';

/** Rows written per transaction after a listing. */
export const WRITE_SLICE = 500;

/** One provider's part of one listing. */
export interface IndexPass {
  /** What the unit held at `stamp`, or undefined when it was not indexed at that stamp. */
  get(unit: string, stamp: string): Located[] | undefined;
  /** What the unit holds at `stamp` (written after the listing). */
  put(unit: string, stamp: string, found: Located[]): void;
  /** The listing is over: `units` are every stamped unit it saw (the rest are dropped). */
  done(units: readonly string[]): void;
}

export interface CatalogIndex {
  pass(provider: string): IndexPass;
  /** Resolves once everything put so far is written (tests, benchmarks). */
  settled(): Promise<void>;
}

type Pending = { provider: string; unit: string; stamp: string; found: Located[] };

export function createCatalogIndex(db: Database.Database, logger: Logger): CatalogIndex {
  const getStmt = db.prepare('SELECT stamp, found FROM catalog_index WHERE provider = ? AND unit = ?').raw();
  const putStmt = db.prepare(
    'INSERT OR REPLACE INTO catalog_index (provider, unit, stamp, found) VALUES (?, ?, ?, ?)',
  );
  const count = db.prepare('SELECT count(*) FROM catalog_index WHERE provider = ?').pluck();
  const unitsOf = db.prepare('SELECT unit FROM catalog_index WHERE provider = ?').pluck();
  const drop = db.prepare('DELETE FROM catalog_index WHERE provider = ? AND unit = ?');
  const writes: Pending[] = [];
  const prunes: { provider: string; units: readonly string[] }[] = [];
  let writing: Promise<void> | undefined;

  const writeSome = db.transaction((rows: Pending[]) => {
    for (const r of rows) putStmt.run(r.provider, r.unit, r.stamp, JSON.stringify(r.found));
  });
  const prune = db.transaction((provider: string, units: readonly string[]) => {
    // Rows of units that are gone: only looked for when the index holds more than the listing saw.
    if ((count.get(provider) as number) <= units.length) return;
    const present = new Set(units);
    for (const unit of unitsOf.all(provider) as string[]) if (!present.has(unit)) drop.run(provider, unit);
  });

  async function drain(): Promise<void> {
    for (;;) {
      await new Promise((r) => setImmediate(r));
      // The gateway closed its database: a cache that is not written is read again next time.
      if (!db.open) break;
      try {
        if (writes.length > 0) writeSome(writes.splice(0, WRITE_SLICE));
        else if (prunes.length > 0) prune(prunes[0]!.provider, prunes.shift()!.units);
        else break;
      } catch (err) {
        // A cache: the listing stood; the files not written are read again by the next one.
        logger.warn('catalog: cannot update the index', { error: String(err) });
        break;
      }
    }
    writes.length = 0;
    prunes.length = 0;
  }

  function schedule(): void {
    writing ??= drain().finally(() => (writing = undefined));
  }

  return {
    pass(provider) {
      // A first listing (nothing indexed yet) asks nothing per file.
      const empty = (count.get(provider) as number) === 0;
      return {
        get(unit, stamp) {
          if (empty) return undefined;
          const row = getStmt.get(provider, unit) as [string, string] | undefined;
          if (!row || row[0] !== stamp) return undefined;
          try {
            return JSON.parse(row[1]) as Located[];
          } catch {
            return undefined;
          }
        },
        put(unit, stamp, found) {
          writes.push({ provider, unit, stamp, found });
        },
        done(units) {
          prunes.push({ provider, units });
          schedule();
        },
      };
    },
    async settled() {
      while (writing) await writing;
    },
  };
}
