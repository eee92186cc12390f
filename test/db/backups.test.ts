// Rolling online backups (issue 14.6): daily on the gateway's scheduler, three kept, the oldest
// removed; and restoring one from Settings: checked first, then close → swap → reopen, with the
// replaced database kept. Driven by the fake clock; real files throughout.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createGateway, GatewayError, type Gateway } from '../../electron/gateway';
import {
  BACKUP_CHECK_MS,
  BACKUP_EVERY_MS,
  backupDue,
  createBackupService,
  backupName,
  backupTime,
  listBackups,
} from '../../electron/gateway/db/backups';
import { quickCheck } from '../../electron/gateway/db/integrity';
import { openSqlite } from '../../electron/gateway/db/sqlite';
import { startGatewayHost, type GatewayHost } from '../../electron/gateway/host';
import { FakeClock, collectingLogger, tempDir } from '../helpers/gateway';
import { damagePage } from './damage';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

function setup(): { dir: string; clock: FakeClock; gw: Gateway } {
  const dir = tempDir('sightline-backups-');
  const clock = new FakeClock();
  const gw = createGateway({
    dataDir: dir,
    autoStart: false,
    now: clock.now,
    scheduler: clock,
    logger: collectingLogger(),
  });
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  cleanups.push(() => gw.close());
  return { dir, clock, gw };
}

const names = (dir: string) => listBackups(dir).map((b) => b.name);

describe('backup names and timing', () => {
  it('names a backup by its UTC time and reads the time back; other names are not backups', () => {
    const t = Date.UTC(2026, 11, 3, 8, 51, 0, 7);
    expect(backupName(t)).toBe('sightline-2026-12-03T08-51-00-007Z.db');
    expect(backupTime(backupName(t))).toBe(t);
    for (const other of [
      'sightline.db',
      'sightline-2026-12-03T08-51-00-007Z.db.partial',
      'notes.txt',
      'sightline-x.db',
    ])
      expect([other, backupTime(other)]).toEqual([other, undefined]);
  });

  it('is due with no backup, a day after the newest, or when the newest is from the future', () => {
    const t = Date.UTC(2026, 11, 3);
    expect(backupDue(undefined, t)).toBe(true);
    expect(backupDue(t - BACKUP_EVERY_MS + 1, t)).toBe(false);
    expect(backupDue(t - BACKUP_EVERY_MS, t)).toBe(true);
    expect(backupDue(t + 1, t)).toBe(true);
  });
});

describe('rolling backups on the fake clock', () => {
  it('backs up at start, then daily on the hourly check; three kept, the oldest removed', async () => {
    const { dir, clock, gw } = setup();
    const t0 = clock.t;
    gw.backups.start();
    await gw.backups.runIfDue();
    expect(names(dir)).toEqual([backupName(t0)]);

    // Within the day: the hourly checks take nothing.
    clock.tick(DAY - HOUR);
    await gw.backups.runIfDue();
    expect(names(dir)).toEqual([backupName(t0)]);

    const taken: number[] = [t0];
    for (let day = 1; day <= 4; day++) {
      gw.sessions.create({ key: `agent:main:day-${day}` });
      clock.tick(HOUR);
      await gw.backups.runIfDue();
      taken.push(clock.t);
      expect(clock.t).toBe(t0 + day * DAY);
      clock.tick(DAY - HOUR);
    }
    // Newest first; t0 and t0+1d removed.
    expect(names(dir)).toEqual(taken.slice(-3).reverse().map(backupName));
    expect(BACKUP_CHECK_MS).toBe(HOUR);

    // Each backup is a whole, checked database holding what existed when it was taken.
    const newest = listBackups(dir)[0]!;
    const db = openSqlite(newest.path, { readonly: true, fileMustExist: true });
    expect(quickCheck(db)).toEqual([]);
    const keys = (
      db.prepare("SELECT key FROM sessions WHERE key LIKE 'agent:main:day-%' ORDER BY key").all() as {
        key: string;
      }[]
    ).map((r) => r.key);
    db.close();
    expect(keys).toEqual(['agent:main:day-1', 'agent:main:day-2', 'agent:main:day-3', 'agent:main:day-4']);
    expect(fs.statSync(newest.path).mode & 0o777).toBe(0o600);
  });

  it('runs only one backup at a time and stops with the gateway', async () => {
    const { dir, clock, gw } = setup();
    const a = gw.backups.takeNow();
    const b = gw.backups.takeNow();
    expect(a).toBe(b);
    await a;
    gw.backups.start();
    gw.backups.stop();
    clock.tick(3 * DAY);
    await gw.backups.runIfDue().then(() => undefined);
    // The manual call above took one; the stopped schedule took none.
    expect(names(dir)).toHaveLength(2);
    expect(clock.pending()).toBe(0);
  });

  it('removes a half-written backup left by a crash, and leaves other files alone', async () => {
    const { dir, clock, gw } = setup();
    const backups = path.join(dir, 'backups');
    fs.mkdirSync(backups, { recursive: true });
    fs.writeFileSync(path.join(backups, `${backupName(clock.t - DAY)}.partial`), 'half');
    fs.writeFileSync(path.join(backups, 'README.txt'), 'mine');
    await gw.backups.takeNow();
    expect(fs.readdirSync(backups).sort()).toEqual(['README.txt', backupName(clock.t)]);
  });

  it('keeps no damaged copy: the good backups stay when the live database went bad', async () => {
    const { dir, clock, gw } = setup();
    for (let i = 0; i < 500; i++) gw.sessions.create({ key: `agent:main:s${i}` });
    const good = await gw.backups.takeNow();
    // The live file is damaged behind the app's back (a disk error, another program).
    const live = path.join(dir, 'sightline.db');
    gw.db.pragma('wal_checkpoint(TRUNCATE)');
    const raw = openSqlite(live);
    damagePage(live);
    const service = createBackupService({
      db: raw,
      dataDir: dir,
      now: clock.now,
      scheduler: clock,
      logger: collectingLogger(),
    });
    clock.tick(DAY);
    await expect(service.takeNow()).rejects.toThrow(/^The state database at .*\.partial is damaged: /);
    raw.close();
    expect(names(dir)).toEqual([good.name]);
    expect(fs.readdirSync(path.join(dir, 'backups'))).toEqual([good.name]);
  });

  it('starts with autoStart and takes the first backup at start-up', async () => {
    const dir = tempDir('sightline-backups-auto-');
    const clock = new FakeClock();
    const roots = Object.fromEntries(
      ['claude', 'codex', 'opencode', 'pi'].map((p) => [p, path.join(dir, p)]),
    );
    for (const root of Object.values(roots)) fs.mkdirSync(root, { recursive: true });
    const gw = createGateway({
      dataDir: path.join(dir, 'data'),
      now: clock.now,
      scheduler: clock,
      catalogRoots: roots,
      logger: collectingLogger(),
    });
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    cleanups.push(() => gw.close());
    await gw.backups.runIfDue();
    expect(names(path.join(dir, 'data'))).toEqual([backupName(clock.t)]);
  });
});

describe('restoring a backup (close → swap → reopen)', () => {
  function hostOn(dir: string, clock: FakeClock, onSwap = vi.fn()): GatewayHost {
    const host = startGatewayHost(
      { dataDir: dir, autoStart: false, now: clock.now, scheduler: clock, logger: collectingLogger() },
      { onSwap },
    );
    cleanups.push(() => host.close());
    return host;
  }

  it('swaps the backup in after the reply, keeps the replaced database and tells the host', async () => {
    const dir = tempDir('sightline-restore-');
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const clock = new FakeClock();
    const onSwap = vi.fn();
    const host = hostOn(dir, clock, onSwap);
    const first = host.gateway;
    first.sessions.create({ key: 'agent:main:in-backup' });
    const backup = await first.backups.takeNow();
    clock.tick(HOUR);
    first.sessions.create({ key: 'agent:main:after-backup' });

    await host.restore(backup.name);
    // Checked and copied beside the database; nothing closed before the reply went out.
    expect(host.gateway).toBe(first);
    expect(fs.existsSync(path.join(dir, 'sightline.db.restore'))).toBe(true);
    expect(first.sessions.get('agent:main:after-backup')).toBeDefined();

    clock.tick(0);
    expect(onSwap).toHaveBeenCalledTimes(1);
    const next = onSwap.mock.calls[0]![0] as Gateway;
    expect(next).toBe(host.gateway);
    expect(next).not.toBe(first);
    expect(() => first.sessions.list()).toThrow('The database connection is not open');
    expect(next.sessions.get('agent:main:in-backup')).toBeDefined();
    expect(next.sessions.get('agent:main:after-backup')).toBeUndefined();

    const keptAs = path.join(dir, 'sightline.db.replaced-2026-12-02T13-00-00-000Z');
    expect(host.notice()).toEqual({
      kind: 'restored',
      at: clock.t,
      path: path.join(dir, 'sightline.db'),
      restoredFrom: backup.name,
      keptAs,
    });
    // Nothing lost: the replaced database is whole and still has what came after the backup.
    const kept = openSqlite(keptAs, { readonly: true, fileMustExist: true });
    expect(quickCheck(kept)).toEqual([]);
    expect(kept.prepare("SELECT key FROM sessions WHERE key = 'agent:main:after-backup'").get()).toEqual({
      key: 'agent:main:after-backup',
    });
    kept.close();
    expect(fs.existsSync(path.join(dir, 'sightline.db.restore'))).toBe(false);
  });

  it('refuses a damaged or unknown backup before closing anything', async () => {
    const dir = tempDir('sightline-restore-bad-');
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const clock = new FakeClock();
    const onSwap = vi.fn();
    const host = hostOn(dir, clock, onSwap);
    for (let i = 0; i < 500; i++) host.gateway.sessions.create({ key: `agent:main:s${i}` });
    const backup = await host.gateway.backups.takeNow();
    damagePage(backup.path);

    await expect(host.restore(backup.name)).rejects.toThrow(GatewayError);
    await expect(host.restore(backup.name)).rejects.toMatchObject({
      code: 'invalid_argument',
      message: expect.stringMatching(new RegExp(`^The backup ${backup.name} is damaged too: `)),
    });
    await expect(host.restore('sightline-2020-01-01T00-00-00-000Z.db')).rejects.toMatchObject({
      code: 'not_found',
      message: 'Unknown backup: sightline-2020-01-01T00-00-00-000Z.db',
    });
    clock.tick(0);
    expect(onSwap).not.toHaveBeenCalled();
    expect(host.gateway.sessions.get('agent:main:s499')).toBeDefined();
    expect(fs.readdirSync(dir).filter((f) => f.includes('.restore') || f.includes('.replaced'))).toEqual([]);
  });

  it('keeps the database when another process still has it open (its log would be replayed)', async () => {
    const dir = tempDir('sightline-restore-busy-');
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const clock = new FakeClock();
    const onSwap = vi.fn();
    const host = hostOn(dir, clock, onSwap);
    host.gateway.sessions.create({ key: 'agent:main:in-backup' });
    const backup = await host.gateway.backups.takeNow();
    host.gateway.sessions.create({ key: 'agent:main:live' });
    const other = openSqlite(path.join(dir, 'sightline.db'));
    other.pragma('journal_mode = WAL');
    other.prepare('SELECT count(*) FROM sessions').get();

    await host.restore(backup.name);
    clock.tick(0);
    other.close();
    expect(onSwap).toHaveBeenCalledTimes(1);
    expect(host.notice()).toMatchObject({ kind: 'restore_failed', restoredFrom: backup.name });
    expect(host.notice()?.damage?.[0]).toContain('is still open in another process');
    expect(host.gateway.sessions.get('agent:main:live')).toBeDefined();
    expect(fs.readdirSync(dir).filter((f) => f.includes('.restore') || f.includes('.replaced'))).toEqual([]);
  });
});
