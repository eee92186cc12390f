// A damaged database is handled, not fatal (issue 14.6). createGateway throws a typed error that
// names the file and the damage; the app's host moves the files aside and starts from the newest
// good backup or empty, and says so. Real damaged files throughout.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../electron/gateway';
import { backupName } from '../../electron/gateway/db/backups';
import { DamagedDatabaseError } from '../../electron/gateway/db/integrity';
import { NewerDatabaseError } from '../../electron/gateway/db/migrate';
import { openSqlite } from '../../electron/gateway/db/sqlite';
import { moveDamagedAside } from '../../electron/gateway/db/recovery';
import { startGatewayHost } from '../../electron/gateway/host';
import { FakeClock, collectingLogger, tempDir } from '../helpers/gateway';
import { NOT_A_DATABASE, damagePage, writeDatabase, writeNotADatabase } from './damage';

const dirs: string[] = [];
const open: Gateway[] = [];
afterEach(() => {
  for (const gw of open.splice(0)) gw.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
const dataDir = () => {
  const d = tempDir('sightline-damaged-');
  dirs.push(d);
  return d;
};
const keep = (gw: Gateway) => (open.push(gw), gw);

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('createGateway on a damaged database', () => {
  it('throws DamagedDatabaseError naming the path when the file is not a database, and leaves it alone', () => {
    const dir = dataDir();
    const file = writeNotADatabase(dir);
    const err = thrown(() => createGateway({ dataDir: dir, autoStart: false }));
    expect(err).toBeInstanceOf(DamagedDatabaseError);
    expect(err).toMatchObject({ name: 'DamagedDatabaseError', code: 'database_damaged', path: file });
    expect((err as DamagedDatabaseError).damage).toEqual(['file is not a database']);
    expect((err as Error).message).toBe(`The state database at ${file} is damaged: file is not a database`);
    expect(fs.readFileSync(file)).toEqual(NOT_A_DATABASE);
  });

  it('throws DamagedDatabaseError with quick_check’s findings for a database with a damaged page', () => {
    const dir = dataDir();
    const file = writeDatabase(dir);
    const page = damagePage(file);
    // The damage is invisible to a plain open: only the check sees it.
    const raw = openSqlite(file);
    expect(raw.prepare("SELECT key FROM sessions WHERE key = 'agent:main:before'").all()).toEqual([
      { key: 'agent:main:before' },
    ]);
    raw.close();
    const err = thrown(() => createGateway({ dataDir: dir, autoStart: false })) as DamagedDatabaseError;
    expect(err).toBeInstanceOf(DamagedDatabaseError);
    expect(err.path).toBe(file);
    expect(err.damage[0]).toBe(`Tree ${page} page ${page}: btreeInitPage() returns error code 11`);
    expect(err.damage.length).toBeGreaterThan(1);
    expect(err.damage.length).toBeLessThanOrEqual(20);
    expect(err.message).toBe(
      `The state database at ${file} is damaged: ${err.damage[0]} (and ${err.damage.length - 1} more)`,
    );
  });

  it('keeps other failures what they are (a newer schema is not damage)', () => {
    const dir = dataDir();
    const file = writeDatabase(dir, 10);
    const db = openSqlite(file);
    db.pragma('user_version = 999');
    db.close();
    expect(thrown(() => createGateway({ dataDir: dir, autoStart: false }))).toBeInstanceOf(
      NewerDatabaseError,
    );
  });
});

describe('moveDamagedAside', () => {
  it('renames the database with its -wal and -shm, keeping SQLite’s pairing of the names', () => {
    const dir = dataDir();
    const file = writeNotADatabase(dir);
    fs.writeFileSync(`${file}-wal`, 'wal bytes');
    fs.writeFileSync(`${file}-shm`, 'shm bytes');
    const movedTo = moveDamagedAside(dir, Date.UTC(2026, 11, 3, 8, 51, 0, 7));
    expect(movedTo).toBe(`${file}.corrupt-2026-12-03T08-51-00-007Z`);
    expect(fs.readdirSync(dir).sort()).toEqual([
      'sightline.db.corrupt-2026-12-03T08-51-00-007Z',
      'sightline.db.corrupt-2026-12-03T08-51-00-007Z-shm',
      'sightline.db.corrupt-2026-12-03T08-51-00-007Z-wal',
    ]);
    expect(fs.readFileSync(`${movedTo}-wal`, 'utf8')).toBe('wal bytes');
  });
});

describe('the app host at start-up', () => {
  it('moves a non-database file aside, starts empty and says so with the paths', () => {
    const dir = dataDir();
    const file = writeNotADatabase(dir);
    const clock = new FakeClock();
    const logger = collectingLogger();
    const host = startGatewayHost(
      { dataDir: dir, autoStart: false, now: clock.now, scheduler: clock, logger },
      { onSwap: () => undefined },
    );
    keep(host.gateway);
    const movedTo = `${file}.corrupt-2026-12-02T12-00-00-000Z`;
    expect(host.notice()).toEqual({
      kind: 'damaged',
      at: clock.t,
      path: file,
      damage: ['file is not a database'],
      movedTo,
    });
    expect(fs.readFileSync(movedTo)).toEqual(NOT_A_DATABASE);
    expect(host.gateway.sessions.list().map((s) => s.key)).toEqual(['agent:main:main']);
    expect(logger.lines.map((l) => [l.level, l.msg])).toContainEqual([
      'error',
      'database: damaged at start-up; moved aside',
    ]);
  });

  it('restores the newest backup that passes the check, skipping a damaged one', () => {
    const dir = dataDir();
    fs.mkdirSync(path.join(dir, 'backups'));
    const older = backupName(Date.UTC(2026, 11, 1));
    const newer = backupName(Date.UTC(2026, 11, 2));
    // The older backup is good and holds a session; the newer one is damaged too.
    const good = writeDatabase(dataDir(), 50, 'agent:main:from-backup');
    fs.copyFileSync(good, path.join(dir, 'backups', older));
    const bad = writeDatabase(dataDir(), 2000);
    damagePage(bad);
    fs.copyFileSync(bad, path.join(dir, 'backups', newer));
    const file = writeDatabase(dir);
    damagePage(file);

    const clock = new FakeClock();
    const host = startGatewayHost(
      { dataDir: dir, autoStart: false, now: clock.now, scheduler: clock, logger: collectingLogger() },
      { onSwap: () => undefined },
    );
    keep(host.gateway);
    expect(host.notice()).toMatchObject({
      kind: 'damaged',
      path: file,
      movedTo: `${file}.corrupt-2026-12-02T12-00-00-000Z`,
      restoredFrom: older,
      skipped: [newer],
    });
    expect(host.gateway.sessions.get('agent:main:from-backup')).toBeDefined();
    expect(host.gateway.sessions.get('agent:main:before')).toBeUndefined();
    // Nothing half-done is left beside the database (gateways/ holds the running gateway's lock).
    expect(fs.readdirSync(dir).sort()).toEqual(
      [
        'backups',
        'gateways',
        'sightline.db',
        'sightline.db-shm',
        'sightline.db-wal',
        'sightline.db.corrupt-2026-12-02T12-00-00-000Z',
      ].sort(),
    );
  });

  it('removes the side file of a restore that was interrupted before its swap', () => {
    const dir = dataDir();
    writeDatabase(dir, 10);
    fs.writeFileSync(path.join(dir, 'sightline.db.restore'), 'half a copy');
    const host = startGatewayHost(
      { dataDir: dir, autoStart: false, logger: collectingLogger() },
      { onSwap: () => undefined },
    );
    keep(host.gateway);
    expect(host.notice()).toBeUndefined();
    expect(fs.existsSync(path.join(dir, 'sightline.db.restore'))).toBe(false);
    expect(host.gateway.sessions.get('agent:main:before')).toBeDefined();
  });

  it('opens an undamaged database with no notice and rethrows what is not damage', () => {
    const dir = dataDir();
    writeDatabase(dir, 10);
    const host = startGatewayHost(
      { dataDir: dir, autoStart: false, logger: collectingLogger() },
      { onSwap: () => undefined },
    );
    keep(host.gateway);
    expect(host.notice()).toBeUndefined();
    host.close();
    open.pop();
    const db = openSqlite(path.join(dir, 'sightline.db'));
    db.pragma('user_version = 999');
    db.close();
    expect(() =>
      startGatewayHost(
        { dataDir: dir, autoStart: false, logger: collectingLogger() },
        { onSwap: () => undefined },
      ),
    ).toThrow(NewerDatabaseError);
    expect(fs.readdirSync(dir).filter((f) => f.includes('corrupt'))).toEqual([]);
  });
});
