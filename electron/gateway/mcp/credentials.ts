// MCP credentials (owner of `mcp_credentials` and `mcp_endpoint`). A credential makes an MCP
// client act as one session, and goes with it (the foreign key cascades on session delete). The
// secret is 32 random bytes, shown once; only its SHA-256 is stored, so a copy of the database
// grants nothing. (A fast hash is right here: the secret is random and long, not a password
// anyone could guess.)
// An ACP child's credential lives in memory only, as long as its agent process: it is valid the
// moment it is made, before `session/new` (agents connect to their MCP servers then), even for a
// session a person's start has not committed yet, and no agent of an earlier run can hold one.
import crypto from 'node:crypto';
import { isReach, type Reach } from '../../../shared/ipc/reach';
import type { Db } from '../db/open';

export type CredentialKind = 'acp' | 'external';

export interface Credential {
  id: string;
  sessionKey: string;
  kind: CredentialKind;
  label?: string;
  /** The endpoint's port when the credential was issued (its client was configured with it). */
  port: number;
  createdAt: number;
  lastUsedAt?: number;
  client?: string;
  /** What its session may see and act on through the session tools (issue 29.2). */
  reach: Reach;
}

interface Row {
  id: string;
  session_key: string;
  kind: CredentialKind;
  label: string | null;
  port: number;
  created_at: number;
  last_used_at: number | null;
  client: string | null;
  reach: Reach;
}

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

function toCredential(r: Row): Credential {
  return {
    id: r.id,
    sessionKey: r.session_key,
    kind: r.kind,
    ...(r.label !== null ? { label: r.label } : {}),
    port: r.port,
    createdAt: r.created_at,
    ...(r.last_used_at !== null ? { lastUsedAt: r.last_used_at } : {}),
    ...(r.client !== null ? { client: r.client } : {}),
    // A value written by hand into the database counts as the narrowest reach.
    reach: isReach(r.reach) ? r.reach : 'tree',
  };
}

export type CredentialStore = ReturnType<typeof createCredentialStore>;

export function createCredentialStore(db: Db, now: () => number) {
  const s = {
    insert: db.prepare(
      `INSERT INTO mcp_credentials (id, session_key, kind, label, secret_hash, port, created_at, reach)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    byHash: db.prepare<[string], Row>(`SELECT * FROM mcp_credentials WHERE secret_hash = ?`),
    all: db.prepare<[], Row>(`SELECT * FROM mcp_credentials ORDER BY created_at, id`),
    bySession: db.prepare<[string], Row>(
      `SELECT * FROM mcp_credentials WHERE session_key = ? ORDER BY created_at, id`,
    ),
    touch: db.prepare(`UPDATE mcp_credentials SET last_used_at = ? WHERE id = ?`),
    touchClient: db.prepare(`UPDATE mcp_credentials SET last_used_at = ?, client = ? WHERE id = ?`),
    remove: db.prepare(`DELETE FROM mcp_credentials WHERE id = ?`),
    removeAllAcp: db.prepare(`DELETE FROM mcp_credentials WHERE kind = 'acp'`),
    countExternal: db.prepare<[], { n: number }>(
      `SELECT count(*) AS n FROM mcp_credentials WHERE kind = 'external'`,
    ),
    port: db.prepare<[], { port: number }>(`SELECT port FROM mcp_endpoint WHERE id = 1`),
    savePort: db.prepare(
      `INSERT INTO mcp_endpoint (id, port, updated_at) VALUES (1, ?, ?)
       ON CONFLICT (id) DO UPDATE SET port = excluded.port, updated_at = excluded.updated_at`,
    ),
  };

  // ACP children's credentials by secret hash (see the top of the file).
  const acp = new Map<string, Credential>();
  const newSecret = () => {
    const secret = SECRET_PREFIX + crypto.randomBytes(32).toString('base64url');
    return { id: crypto.randomUUID(), secret, hash: hashSecret(secret) };
  };
  const acpById = (id: string) => [...acp.values()].find((c) => c.id === id);

  return {
    /** A new credential for an outside agent; the secret is returned here and nowhere else. */
    issue(input: IssueInput) {
      const { id, secret, hash } = newSecret();
      s.insert.run(
        id,
        input.sessionKey,
        'external',
        input.label ?? null,
        hash,
        input.port,
        now(),
        input.reach,
      );
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
      const row = s.byHash.get(hash);
      return row ? toCredential(row) : undefined;
    },
    /** A client called with it; `client` is its clientInfo.name when the call was `initialize`. */
    touch(id: string, client?: string): void {
      const held = acpById(id);
      if (held) {
        held.lastUsedAt = now();
        if (client !== undefined) held.client = client;
      } else if (client === undefined) s.touch.run(now(), id);
      else s.touchClient.run(now(), client, id);
    },
    list(sessionKey?: string): Credential[] {
      const rows = (sessionKey === undefined ? s.all.all() : s.bySession.all(sessionKey)).map(toCredential);
      const held = [...acp.values()].filter((c) => sessionKey === undefined || c.sessionKey === sessionKey);
      return [...rows, ...held.map((c) => ({ ...c }))].sort((a, b) => a.createdAt - b.createdAt);
    },
    revoke(id: string): boolean {
      const held = [...acp].find(([, c]) => c.id === id);
      if (held) return acp.delete(held[0]);
      return s.remove.run(id).changes > 0;
    },
    /** An ACP child's agent ended or restarts: its secret dies with it. */
    revokeAcp(sessionKey: string): void {
      for (const [hash, c] of acp) if (c.sessionKey === sessionKey) acp.delete(hash);
    },
    /** At start-up: rows of ACP credentials an older version wrote belong to agents long gone. */
    revokeAllAcp: (): number => s.removeAllAcp.run().changes,
    hasExternal: (): boolean => (s.countExternal.get()?.n ?? 0) > 0,
    savedPort: (): number | undefined => s.port.get()?.port,
    savePort: (port: number): void => void s.savePort.run(port, now()),
  };
}
