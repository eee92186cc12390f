// MCP credentials (their rows: credential-repository.ts). A credential makes an MCP
// client act as one session, and goes with it (the foreign key cascades on session delete). The
// secret is 32 random bytes, shown once; only its SHA-256 is stored, so a copy of the database
// grants nothing. (A fast hash is right here: the secret is random and long, not a password
// anyone could guess.)
// An ACP child's credential lives in memory only, as long as its agent process: it is valid the
// moment it is made, before `session/new` (agents connect to their MCP servers then), even for a
// session a person's start has not committed yet, and no agent of an earlier run can hold one.
import crypto from 'node:crypto';
import type { Reach } from '../../../shared/ipc/reach';
import type { Credential, CredentialRepository } from './credential-repository';

export type { Credential, CredentialKind } from './credential-repository';

const SECRET_PREFIX = 'slmcp_';

interface IssueInput {
  sessionKey: string;
  label?: string;
  port: number;
  reach: Reach;
}

export function hashSecret(secret: string): string {
  return crypto.createHash('sha256').update(secret, 'utf8').digest('hex');
}

const newSecret = () => {
  const secret = SECRET_PREFIX + crypto.randomBytes(32).toString('base64url');
  return { id: crypto.randomUUID(), secret, hash: hashSecret(secret) };
};

export type CredentialStore = ReturnType<typeof createCredentialStore>;

export function createCredentialStore(rows: CredentialRepository, now: () => number) {
  // ACP children's credentials by secret hash (see the top of the file).
  const acp = new Map<string, Credential>();
  const acpById = (id: string) => [...acp.values()].find((c) => c.id === id);

  return {
    /** A new credential for an outside agent; the secret is returned here and nowhere else. */
    issue(input: IssueInput) {
      const { id, secret, hash } = newSecret();
      rows.insertExternal({ ...input, id, hash, createdAt: now() });
      return { id, secret };
    },
    /** An ACP child's credential, valid at once, held in memory until `revokeAcp`. */
    issueAcp(input: IssueInput) {
      const { id, secret, hash } = newSecret();
      acp.set(hash, {
        id,
        sessionKey: input.sessionKey,
        kind: 'acp',
        ...(input.label !== undefined ? { label: input.label } : {}),
        port: input.port,
        createdAt: now(),
        reach: input.reach,
      });
      return { id, secret };
    },
    /** The credential a presented secret belongs to, if any. */
    verify(secret: string): Credential | undefined {
      if (!secret.startsWith(SECRET_PREFIX) || secret.length > 200) return undefined;
      const hash = hashSecret(secret);
      const held = acp.get(hash);
      if (held) return { ...held };
      return rows.byHash(hash);
    },
    /** A client called with it; `client` is its clientInfo.name when the call was `initialize`. */
    touch(id: string, client?: string): void {
      const held = acpById(id);
      if (held) {
        held.lastUsedAt = now();
        if (client !== undefined) held.client = client;
      } else rows.touch(id, now(), client);
    },
    list(sessionKey?: string): Credential[] {
      const held = [...acp.values()].filter((c) => sessionKey === undefined || c.sessionKey === sessionKey);
      return [...rows.list(sessionKey), ...held.map((c) => ({ ...c }))].sort(
        (a, b) => a.createdAt - b.createdAt,
      );
    },
    revoke(id: string): boolean {
      const held = [...acp].find(([, c]) => c.id === id);
      if (held) return acp.delete(held[0]);
      return rows.remove(id);
    },
    /** An ACP child's agent ended or restarts: its secret dies with it. */
    revokeAcp(sessionKey: string): void {
      for (const [hash, c] of acp) if (c.sessionKey === sessionKey) acp.delete(hash);
    },
    /** At start-up: rows of ACP credentials an older version wrote belong to agents long gone. */
    revokeAllAcp: (): number => rows.removeAllAcp(),
    hasExternal: (): boolean => rows.countExternal() > 0,
    savedPort: rows.savedPort,
    savePort: (port: number): void => rows.savePort(port, now()),
  };
}
