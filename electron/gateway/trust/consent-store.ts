// The owner of `consents` (migration 008): what the person allowed once, by key.
import type { Db } from '../db/open';

export interface ConsentStore {
  has(key: string): boolean;
  put(key: string, summary: string, at: number): void;
  forget(key: string): void;
}

export function createConsentStore(db: Db): ConsentStore {
  const s = {
    get: db.prepare<[string], { key: string }>(`SELECT key FROM consents WHERE key = ?`),
    put: db.prepare(
      `INSERT INTO consents (key, summary, approved_at) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET summary = excluded.summary, approved_at = excluded.approved_at`,
    ),
    forget: db.prepare(`DELETE FROM consents WHERE key = ?`),
  };
  return {
    has: (key) => s.get.get(key) !== undefined,
    put: (key, summary, at) => void s.put.run(key, summary, at),
    forget: (key) => void s.forget.run(key),
  };
}
