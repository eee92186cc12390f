// The gateway as an app holds it (Electron main, browser mode): opened with damage recovery, and
// swapped for a backup by close → swap → reopen. Scripts and tests call createGateway directly:
// it throws DamagedDatabaseError and they decide. Plain Node; the hosts rebind their transports
// in onSwap.
//
// Damage at start-up: the files are moved aside (sightline.db.corrupt-<time>, with -wal/-shm),
// the newest backup that passes quick_check is put in place (else the app starts empty), and the
// notice says so, with the paths, until the next launch. A restore from Settings is checked and
// copied next to the database before anything is closed, so a bad backup changes nothing.
import type { DatabaseNotice } from '../../shared/ipc/types';
import { DB_FILE } from './db/open';
import { DamagedDatabaseError } from './db/integrity';
import {
  moveDamagedAside,
  prepareNamedRestore,
  prepareNewestGoodBackup,
  removeLeftovers,
  swapInPrepared,
} from './db/recovery';
import { GatewayError } from './errors';
import { consoleLogger } from './events';
import { createGateway, type Gateway } from './index';
import { realScheduler } from './scheduler';
import type { GatewayOptions } from './types';
import fs from 'node:fs';
import path from 'node:path';

export interface GatewayHostHooks {
  /** A restore replaced the gateway (the previous one is closed): rebind transports to `next`. */
  onSwap(next: Gateway): void;
}

export interface GatewayHost {
  readonly gateway: Gateway;
  notice(): DatabaseNotice | undefined;
  /**
   * Checks backup `name` and copies it next to the database (errors reach the caller), then, on
   * the scheduler's next turn (after the caller's reply went out), closes the gateway, swaps the
   * files and reopens.
   */
  restore(name: string): Promise<void>;
  close(): void;
}

export function startGatewayHost(
  options: GatewayOptions,
  hooks: GatewayHostHooks,
  open: (options: GatewayOptions) => Gateway = createGateway,
): GatewayHost {
  const now = options.now ?? Date.now;
  const logger = options.logger ?? consoleLogger;
  const scheduler = options.scheduler ?? realScheduler;
  const file = path.join(options.dataDir, DB_FILE);
  removeLeftovers(options.dataDir);

  let notice: DatabaseNotice | undefined;
  let gateway: Gateway;
  try {
    gateway = open(options);
  } catch (err) {
    if (!(err instanceof DamagedDatabaseError)) throw err;
    const at = now();
    const movedTo = moveDamagedAside(options.dataDir, at);
    const good = prepareNewestGoodBackup(options.dataDir);
    if ('side' in good) swapInPrepared(options.dataDir, good.side, at);
    gateway = open(options);
    notice = {
      kind: 'damaged',
      at,
      path: file,
      damage: err.damage,
      movedTo,
      ...('backup' in good ? { restoredFrom: good.backup.name } : {}),
      ...(good.skipped.length > 0 ? { skipped: good.skipped } : {}),
    };
    logger.error('database: damaged at start-up; moved aside', {
      movedTo,
      restoredFrom: 'backup' in good ? good.backup.name : 'none (started empty)',
    });
  }

  let restoring = false;

  function swap(backupName: string, side: string): void {
    const at = now();
    gateway.close();
    let keptAs: string | undefined;
    try {
      keptAs = swapInPrepared(options.dataDir, side, at);
      gateway = open(options);
      notice = { kind: 'restored', at, path: file, restoredFrom: backupName, ...(keptAs ? { keptAs } : {}) };
    } catch (err) {
      // Put the replaced database back (it is intact: it was open a moment ago) and carry on.
      fs.rmSync(side, { force: true });
      if (keptAs) fs.renameSync(keptAs, file);
      gateway = open(options);
      notice = { kind: 'restore_failed', at, path: file, restoredFrom: backupName, damage: [String(err)] };
      logger.error('database: restore failed; kept the database', { backup: backupName, error: String(err) });
    }
    hooks.onSwap(gateway);
  }

  return {
    get gateway() {
      return gateway;
    },
    notice: () => notice,
    async restore(name) {
      if (restoring) throw new GatewayError('unavailable', 'A restore is already running');
      const { side } = prepareNamedRestore(options.dataDir, name);
      restoring = true;
      scheduler.after(0, () => {
        try {
          swap(name, side);
        } finally {
          restoring = false;
        }
      });
    },
    close: () => gateway.close(),
  };
}
