// Real damaged database files for the tests: a file that is not a database, and a database whose
// signal log has a page overwritten (the open succeeds; quick_check finds it).
import fs from 'node:fs';
import path from 'node:path';
import { createGateway } from '../../electron/gateway';
import { openSqlite } from '../../electron/gateway/db/sqlite';

export const NOT_A_DATABASE = Buffer.from('These are meeting notes, not a database.\n'.repeat(200));

export function writeNotADatabase(dataDir: string): string {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'sightline.db');
  fs.writeFileSync(file, NOT_A_DATABASE);
  return file;
}

/** A real gateway database with `rows` signal-log rows, closed cleanly. */
export function writeDatabase(dataDir: string, rows = 2000, sessionKey = 'agent:main:before'): string {
  const gw = createGateway({ dataDir, autoStart: false });
  gw.sessions.create({ key: sessionKey });
  const ins = gw.db.prepare(
    `INSERT INTO session_state_events (session_key, agent_id, kind, actor_type, occurred_at, summary)
     VALUES (?, 'main', 'run_completed', 'agent', ?, ?)`,
  );
  gw.db.transaction(() => {
    for (let i = 0; i < rows; i++) ins.run(sessionKey, i, `run ${i} completed `.repeat(8));
  })();
  gw.close();
  return path.join(dataDir, 'sightline.db');
}

/**
 * Overwrites the root page of one of the signal log's indexes with garbage: opens fine,
 * quick_check fails. (By name, not by position: a migration that rebuilds the table moves pages.)
 */
export function damagePage(file: string): number {
  const db = openSqlite(file);
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const page = (
    db.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'session_state_events_by_time'").get() as {
      rootpage: number;
    }
  ).rootpage;
  db.close();
  const fd = fs.openSync(file, 'r+');
  fs.writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, (page - 1) * pageSize);
  fs.closeSync(fd);
  return page;
}
