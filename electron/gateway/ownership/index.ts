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

interface OwnershipDeps {
  repo: OwnershipRepository;
  tx: Transactions;
  dataDir: string;
  logger: Logger;
}

export function createOwnership(deps: OwnershipDeps): Ownership {
  return new GatewayOwnership(deps);
}

/**
 * A class so that each step is a short named method over the state every step shares; the
 * contract's methods are bound fields (callers hand `ownership.owns` around).
 */
class GatewayOwnership implements Ownership {
  readonly gatewayId = randomUUID();
  private readonly s: OwnershipRepository;
  private readonly pid = process.pid;
  private readonly host = os.hostname();
  private readonly claims = new Map<number, Claim>();
  /** Session key → the claim it belongs to (null: none). Filled lazily, refreshed by poll. */
  private readonly sessions = new Map<string, number | null>();
  private lock: HeldLock | undefined;
  private home = 0; // the claim new sessions join
  private seen = 0; // the highest epoch whose changes this gateway knows

  constructor(private readonly deps: OwnershipDeps) {
    this.s = deps.repo;
  }

  owns = (key: string): boolean => {
    const c = this.lookup(key);
    return c === undefined || c.gateway === this.gatewayId;
  };

  holds = (key: string): boolean => this.lookup(key)?.gateway === this.gatewayId;

  epoch = (key: string): number | undefined => {
    const c = this.lookup(key);
    return c?.gateway === this.gatewayId ? c.epoch : undefined;
  };

  fence = (key: string, epoch?: number): void => {
    const row = this.s.ownerOf(normalizeSessionKey(key));
    if (!row) return; // nobody holds it (not a session, or deleted): nothing to fence against
    const [id, gateway, current] = row;
    if (gateway === this.gatewayId && (epoch === undefined || current === epoch)) return;
    this.claims.set(id, { gateway, epoch: current });
    throw new NotOwnerError(key);
  };

  fenced = <T>(key: string, write: () => T, epoch?: number): T =>
    this.deps.tx.run(() => {
      this.fence(key, epoch);
      return write();
    });

  claimCreated = (key: string): void => {
    const k = normalizeSessionKey(key);
    const { tx } = this.deps;
    tx.run(() => {
      if (this.s.joined(k) === undefined) this.s.join(k, this.home, this.s.tick());
      // Whatever was cached (e.g. "nobody" before the row existed) is read again after commit.
      tx.afterCommit(() => this.sessions.delete(k));
    });
  };

  forget = (key: string): void => {
    this.sessions.delete(key);
    this.sessions.delete(normalizeSessionKey(key));
  };

  start = (): OwnershipChange & { alone: boolean } => {
    const { dataDir, logger } = this.deps;
    this.lock = acquireLock(dataDir, this.gatewayId);
    const states = this.s.others(this.gatewayId).map((g) => [g, probeLock(dataDir, g)] as const);
    const gone = states.filter(([, st]) => st === 'free').map(([g]) => g);
    const taken = this.deps.tx.run(() => this.claimAtStart(gone));
    for (const g of gone) removeLockFile(dataDir, g);
    const claimed = [...new Set([...this.keysOf(taken.ids), ...taken.orphans])];
    if (gone.length)
      logger.info('ownership: took over the sessions of gateways that are gone', {
        gateways: gone.length,
        sessions: claimed.length,
      });
    return { claimed, lost: [], alone: states.every(([, st]) => st === 'free') };
  };

  poll = (): OwnershipChange => {
    const lost = this.learnClaims();
    const claimed = this.keysOf(this.takeOverGone());
    if (claimed.length)
      this.deps.logger.info('ownership: took over the sessions of a gateway that is gone', {
        sessions: claimed.length,
      });
    if (lost.length)
      this.deps.logger.warn('ownership: another gateway took over sessions of this one (its lock was lost)', {
        sessions: lost.length,
      });
    return { claimed, lost };
  };

  close = (): void => {
    this.lock?.release();
    this.lock = undefined;
  };

  /** In start()'s transaction: the claims of gone gateways, else a new home claim, and orphans. */
  private claimAtStart(gone: string[]) {
    const { s } = this;
    const epoch = s.tick();
    const ids = gone.flatMap((g) => this.takeOverFrom(g, epoch));
    this.home = ids[0] ?? s.newClaim(this.gatewayId, epoch, this.pid, this.host);
    for (const id of ids.length ? ids : [this.home]) this.claims.set(id, { gateway: this.gatewayId, epoch });
    // Sessions of a database older than ownership (or written by hand) join this gateway.
    const orphans = s.joinOrphans(this.home, epoch);
    s.dropEmpty(this.gatewayId, this.home);
    this.seen = epoch;
    return { ids, orphans };
  }

  /** Poll, step 1: what other gateways claimed or created since the last look; returns the keys lost. */
  private learnClaims(): string[] {
    const lost: string[] = [];
    const top = this.s.clock();
    if (top <= this.seen) return lost;
    const lostClaims = new Set<number>();
    for (const r of this.s.claimsSince(this.seen)) {
      if (this.claims.get(r.id)?.gateway === this.gatewayId && r.gateway_id !== this.gatewayId)
        lostClaims.add(r.id);
      this.claims.set(r.id, { gateway: r.gateway_id, epoch: r.epoch });
    }
    for (const r of this.s.joinsSince(this.seen))
      if (this.sessions.has(r.session_key)) this.sessions.set(r.session_key, r.owner_id);
    this.seen = top;
    if (lostClaims.size)
      for (const [key, id] of this.sessions) if (id !== null && lostClaims.has(id)) lost.push(key);
    return lost;
  }

  /** Poll, step 2: gateways that are gone; their claims are taken over at once. */
  private takeOverGone(): number[] {
    const { dataDir, tx } = this.deps;
    const taken: number[] = [];
    for (const g of this.s.others(this.gatewayId)) {
      if (probeLock(dataDir, g) !== 'free') continue;
      const ids = tx.run(() => {
        const epoch = this.s.tick();
        const ids = this.takeOverFrom(g, epoch);
        for (const id of ids) this.claims.set(id, { gateway: this.gatewayId, epoch });
        this.s.dropEmpty(this.gatewayId, this.home);
        return ids;
      });
      removeLockFile(dataDir, g);
      taken.push(...ids);
    }
    return taken;
  }

  private claimOf(id: number): Claim {
    let c = this.claims.get(id);
    if (!c) {
      const row = this.s.claim(id);
      c = row ? { gateway: row.gateway_id, epoch: row.epoch } : { gateway: '', epoch: 0 };
      if (row) this.claims.set(id, c);
    }
    return c;
  }

  private lookup(key: string): Claim | undefined {
    let id = this.sessions.get(key);
    if (id === undefined) {
      const row = this.s.ownerOf(normalizeSessionKey(key));
      id = row ? row[0] : null;
      if (row && !this.claims.has(row[0])) this.claims.set(row[0], { gateway: row[1], epoch: row[2] });
      // Read inside someone's transaction: that transaction may still roll back.
      if (!this.s.inTransaction()) this.sessions.set(key, id);
    }
    return id === null ? undefined : this.claimOf(id);
  }

  /** Takes over every claim of a gateway found gone; returns the claims taken. */
  private takeOverFrom(gone: string, epoch: number): number[] {
    return this.s.takeOver(this.gatewayId, epoch, this.pid, this.host, gone);
  }

  private keysOf(ids: number[]): string[] {
    return ids.flatMap((id) => this.s.keysOf(id));
  }
}
