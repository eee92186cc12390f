// The owner of the ownership tables (migration 015): `owners` (claims), `session_owners` (which
// claim a session belongs to) and `ownership_clock` (the one fencing-epoch counter). Statements
// only; what they mean is in index.ts.
import type { Db } from '../db/open';

export type OwnershipRepository = ReturnType<typeof createOwnershipRepository>;

export function createOwnershipRepository(db: Db) {
  const s = {
    tick: db.prepare<[], { epoch: number }>(
      `UPDATE ownership_clock SET epoch = epoch + 1 WHERE id = 1 RETURNING epoch`,
    ),
    clock: db.prepare<[], number>(`SELECT epoch FROM ownership_clock WHERE id = 1`).pluck(),
    ownerOf: db
      .prepare<[string], [number, string, number]>(
        `SELECT s.owner_id, o.gateway_id, o.epoch FROM session_owners s JOIN owners o ON o.id = s.owner_id
         WHERE s.session_key = ?`,
      )
      .raw(),
    claim: db.prepare<[number], { gateway_id: string; epoch: number }>(
      `SELECT gateway_id, epoch FROM owners WHERE id = ?`,
    ),
    claimsSince: db.prepare<[number], { id: number; gateway_id: string; epoch: number }>(
      `SELECT id, gateway_id, epoch FROM owners WHERE epoch > ?`,
    ),
    joinsSince: db.prepare<[number], { session_key: string; owner_id: number }>(
      `SELECT session_key, owner_id FROM session_owners WHERE epoch > ?`,
    ),
    others: db
      .prepare<[string], string>(`SELECT DISTINCT gateway_id FROM owners WHERE gateway_id != ?`)
      .pluck(),
    takeOver: db.prepare<[string, number, number, string, string], { id: number }>(
      `UPDATE owners SET gateway_id = ?, epoch = ?, pid = ?, host = ? WHERE gateway_id = ? RETURNING id`,
    ),
    newClaim: db.prepare<[string, number, number, string], { id: number }>(
      `INSERT INTO owners (gateway_id, epoch, pid, host) VALUES (?, ?, ?, ?) RETURNING id`,
    ),
    joined: db.prepare<[string], number>(`SELECT owner_id FROM session_owners WHERE session_key = ?`).pluck(),
    join: db.prepare(`INSERT INTO session_owners (session_key, owner_id, epoch) VALUES (?, ?, ?)`),
    joinOrphans: db
      .prepare<[number, number], string>(
        `INSERT INTO session_owners (session_key, owner_id, epoch)
         SELECT key, ?, ? FROM sessions WHERE key NOT IN (SELECT session_key FROM session_owners)
         RETURNING session_key`,
      )
      .pluck(),
    keysOf: db.prepare<[number], string>(`SELECT session_key FROM session_owners WHERE owner_id = ?`).pluck(),
    dropEmpty: db.prepare(
      `DELETE FROM owners WHERE gateway_id = ? AND id != ?
       AND NOT EXISTS (SELECT 1 FROM session_owners WHERE owner_id = owners.id)`,
    ),
  };

  return {
    /** Inside someone's transaction (what is read may still roll back). */
    inTransaction: () => db.inTransaction,
    /** The next fencing epoch. */
    tick: (): number => s.tick.get()!.epoch,
    clock: (): number => s.clock.get()!,
    /** [claim id, gateway id, epoch] of the claim that holds the session. */
    ownerOf: (key: string): [number, string, number] | undefined => s.ownerOf.get(key),
    claim: (id: number) => s.claim.get(id),
    claimsSince: (epoch: number) => s.claimsSince.all(epoch),
    joinsSince: (epoch: number) => s.joinsSince.all(epoch),
    /** The gateways other than `gatewayId` that hold a claim. */
    others: (gatewayId: string): string[] => s.others.all(gatewayId),
    /** Moves every claim of `gone` to `gatewayId` at `epoch`; the claims' ids. */
    takeOver: (gatewayId: string, epoch: number, pid: number, host: string, gone: string): number[] =>
      s.takeOver.all(gatewayId, epoch, pid, host, gone).map((r) => r.id),
    newClaim: (gatewayId: string, epoch: number, pid: number, host: string): number =>
      s.newClaim.get(gatewayId, epoch, pid, host)!.id,
    joined: (key: string): number | undefined => s.joined.get(key),
    join: (key: string, claimId: number, epoch: number) => void s.join.run(key, claimId, epoch),
    /** Every session no claim holds joins `claimId`; their keys. */
    joinOrphans: (claimId: number, epoch: number): string[] => s.joinOrphans.all(claimId, epoch),
    keysOf: (claimId: number): string[] => s.keysOf.all(claimId),
    /** Drops this gateway's claims that hold no session, except `keep`. */
    dropEmpty: (gatewayId: string, keep: number) => void s.dropEmpty.run(gatewayId, keep),
  };
}
