// One owner per session when several gateways share one database (issue 13.5). A session is run
// by exactly one gateway: the one that created it (started, spawned, adopted), or the one that
// took it over because that gateway is gone. Every path that acts for a session — queueing its
// notices, waking it, running its turn, checking its upstream link, serving its MCP calls — asks
// `owns(key)`; every write made for it runs behind `fence` (or `fenced`) and is refused once
// another gateway holds the session.
//
// * Liveness is the operating system's: each gateway holds a lock file the OS releases when the
//   process ends, SIGKILL included (lock.ts). Never a timer, never the injected clock.
// * Ownership is a row (migration 015): a session belongs to a claim (`owners`), a claim names one
//   gateway and a fencing epoch. Taking over a gone gateway moves its claims whole (one row each,
//   a new epoch from the one counter), so a restart on a database of 10,000 sessions costs as
//   much as one of ten.
// * Every gateway keeps what it has seen in memory (two maps), so `owns` costs two map lookups;
//   `poll` (every second, with the shared-database poll) reads the claims and joins made elsewhere
//   above the last epoch it saw and probes the locks of the other gateways named in `owners`.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { normalizeSessionKey } from '../../../shared/session-keys';
import type { Transactions } from '../db/transactions';
import { GatewayError } from '../errors';
import type { Logger } from '../types';
import { acquireLock, probeLock, removeLockFile, type HeldLock } from './lock';
import type { OwnershipRepository } from './repository';

/** A write for a session another gateway runs (or took over from this one) is refused with this. */
export class NotOwnerError extends GatewayError {
  constructor(readonly sessionKey: string) {
    super('unavailable', `Session ${sessionKey} is run by another Sightline gateway on this database`);
    this.name = 'NotOwnerError';
  }
}

export interface OwnershipChange {
  /** Sessions this gateway just took over (their previous gateway is gone). */
  claimed: string[];
  /** Sessions another gateway took over from this one (this gateway's lock was lost). */
  lost: string[];
}

export interface Ownership {
  readonly gatewayId: string;
  /**
   * The one question every path asks before acting for a session: true when this gateway's claim
   * holds the session, or when no gateway's does (a key that is not a session, such as a watcher
   * key never created: whoever touches it acts, as a single gateway always did).
   */
  owns(sessionKey: string): boolean;
  /** Strict: true only when this gateway's claim holds the session (cross-gateway delivery). */
  holds(sessionKey: string): boolean;
  /** The fencing epoch this gateway holds the session at (undefined: not held here). */
  epoch(sessionKey: string): number | undefined;
  /**
   * Inside a write transaction: throws NotOwnerError when another gateway holds the session, or
   * (given `epoch`) when this gateway's claim is no longer the one of that epoch.
   */
  fence(sessionKey: string, epoch?: number): void;
  /** `write` in one transaction that starts with fence(). */
  fenced<T>(sessionKey: string, write: () => T, epoch?: number): T;
  /** Part of creating a session: a new session is run here; an existing one keeps its owner. */
  claimCreated(sessionKey: string): void;
  /** A session deleted here: forget what was cached about it. */
  forget(sessionKey: string): void;
  /** Start-up: takes over every gone gateway's claims and every session nobody holds. */
  start(): OwnershipChange & { alone: boolean };
  /** Learns the claims made elsewhere and takes over the claims of gateways found gone. */
  poll(): OwnershipChange;
  close(): void;
}

interface Claim {
  gateway: string;
  epoch: number;
}

export function createOwnership(deps: {
  repo: OwnershipRepository;
  tx: Transactions;
  dataDir: string;
  logger: Logger;
}): Ownership {
  const { repo: s, tx, dataDir, logger } = deps;
  const gatewayId = randomUUID();
  const pid = process.pid;
  const host = os.hostname();

  const claims = new Map<number, Claim>();
  /** Session key → the claim it belongs to (null: none). Filled lazily, refreshed by poll. */
  const sessions = new Map<string, number | null>();
  let lock: HeldLock | undefined;
  let home = 0; // the claim new sessions join
  let seen = 0; // the highest epoch whose changes this gateway knows

  const claimOf = (id: number): Claim => {
    let c = claims.get(id);
    if (!c) {
      const row = s.claim(id);
      c = row ? { gateway: row.gateway_id, epoch: row.epoch } : { gateway: '', epoch: 0 };
      if (row) claims.set(id, c);
    }
    return c;
  };

  const lookup = (key: string): Claim | undefined => {
    let id = sessions.get(key);
    if (id === undefined) {
      const row = s.ownerOf(normalizeSessionKey(key));
      id = row ? row[0] : null;
      if (row && !claims.has(row[0])) claims.set(row[0], { gateway: row[1], epoch: row[2] });
      // Read inside someone's transaction: that transaction may still roll back.
      if (!s.inTransaction()) sessions.set(key, id);
    }
    return id === null ? undefined : claimOf(id);
  };

  /** Takes over every claim of a gateway found gone; returns the claims taken. */
  const takeOverFrom = (gone: string, epoch: number): number[] =>
    s.takeOver(gatewayId, epoch, pid, host, gone);

  const keysOf = (ids: number[]) => ids.flatMap((id) => s.keysOf(id));

  const own: Ownership = {
    gatewayId,
    owns(key) {
      const c = lookup(key);
      return c === undefined || c.gateway === gatewayId;
    },
    holds(key) {
      return lookup(key)?.gateway === gatewayId;
    },
    epoch(key) {
      const c = lookup(key);
      return c?.gateway === gatewayId ? c.epoch : undefined;
    },
    fence(key, epoch) {
      const row = s.ownerOf(normalizeSessionKey(key));
      if (!row) return; // nobody holds it (not a session, or deleted): nothing to fence against
      const [id, gateway, current] = row;
      if (gateway === gatewayId && (epoch === undefined || current === epoch)) return;
      claims.set(id, { gateway, epoch: current });
      throw new NotOwnerError(key);
    },
    fenced(key, write, epoch) {
      return tx.run(() => {
        own.fence(key, epoch);
        return write();
      });
    },
    claimCreated(key) {
      const k = normalizeSessionKey(key);
      tx.run(() => {
        if (s.joined(k) === undefined) s.join(k, home, s.tick());
        // Whatever was cached (e.g. "nobody" before the row existed) is read again after commit.
        tx.afterCommit(() => sessions.delete(k));
      });
    },
    forget(key) {
      sessions.delete(key);
      sessions.delete(normalizeSessionKey(key));
    },
    start() {
      lock = acquireLock(dataDir, gatewayId);
      const states = s.others(gatewayId).map((g) => [g, probeLock(dataDir, g)] as const);
      const gone = states.filter(([, st]) => st === 'free').map(([g]) => g);
      const taken = tx.run(() => {
        const epoch = s.tick();
        const ids = gone.flatMap((g) => takeOverFrom(g, epoch));
        home = ids[0] ?? s.newClaim(gatewayId, epoch, pid, host);
        for (const id of ids.length ? ids : [home]) claims.set(id, { gateway: gatewayId, epoch });
        // Sessions of a database older than ownership (or written by hand) join this gateway.
        const orphans = s.joinOrphans(home, epoch);
        s.dropEmpty(gatewayId, home);
        seen = epoch;
        return { ids, orphans };
      });
      for (const g of gone) removeLockFile(dataDir, g);
      const claimed = [...new Set([...keysOf(taken.ids), ...taken.orphans])];
      if (gone.length)
        logger.info('ownership: took over the sessions of gateways that are gone', {
          gateways: gone.length,
          sessions: claimed.length,
        });
      return { claimed, lost: [], alone: states.every(([, st]) => st === 'free') };
    },
    poll() {
      const lost: string[] = [];
      // 1. What other gateways claimed or created since the last look.
      const top = s.clock();
      if (top > seen) {
        const lostClaims = new Set<number>();
        for (const r of s.claimsSince(seen)) {
          if (claims.get(r.id)?.gateway === gatewayId && r.gateway_id !== gatewayId) lostClaims.add(r.id);
          claims.set(r.id, { gateway: r.gateway_id, epoch: r.epoch });
        }
        for (const r of s.joinsSince(seen))
          if (sessions.has(r.session_key)) sessions.set(r.session_key, r.owner_id);
        seen = top;
        if (lostClaims.size)
          for (const [key, id] of sessions) if (id !== null && lostClaims.has(id)) lost.push(key);
      }
      // 2. Gateways that are gone: their claims are taken over at once.
      const taken: number[] = [];
      for (const g of s.others(gatewayId)) {
        if (probeLock(dataDir, g) !== 'free') continue;
        const ids = tx.run(() => {
          const epoch = s.tick();
          const ids = takeOverFrom(g, epoch);
          for (const id of ids) claims.set(id, { gateway: gatewayId, epoch });
          s.dropEmpty(gatewayId, home);
          return ids;
        });
        removeLockFile(dataDir, g);
        taken.push(...ids);
      }
      const claimed = keysOf(taken);
      if (taken.length)
        logger.info('ownership: took over the sessions of a gateway that is gone', {
          sessions: claimed.length,
        });
      if (lost.length)
        logger.warn('ownership: another gateway took over sessions of this one (its lock was lost)', {
          sessions: lost.length,
        });
      return { claimed, lost };
    },
    close() {
      lock?.release();
      lock = undefined;
    },
  };
  return own;
}
