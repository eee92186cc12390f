// MCP credentials (owner of `mcp_credentials` and `mcp_endpoint`). A credential makes an MCP
// client act as one session, and goes with it (the foreign key cascades on session delete). The
// secret is 32 random bytes, shown once; only its SHA-256 is stored, so a copy of the database
// grants nothing. (A fast hash is right here: the secret is random and long, not a password
// anyone could guess.)
import crypto from 'node:crypto';
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
}

const SECRET_PREFIX = 'slmcp_';

interface IssueInput {
  sessionKey: string;
  kind: CredentialKind;
  label?: string;
  port: number;
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
  };
}

export type CredentialStore = ReturnType<typeof createCredentialStore>;

export function createCredentialStore(db: Db, now: () => number) {
  const s = {
    insert: db.prepare(
      `INSERT INTO mcp_credentials (id, session_key, kind, label, secret_hash, port, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    byHash: db.prepare<[string], Row>(`SELECT * FROM mcp_credentials WHERE secret_hash = ?`),
    all: db.prepare<[], Row>(`SELECT * FROM mcp_credentials ORDER BY created_at, id`),
    bySession: db.prepare<[string], Row>(
      `SELECT * FROM mcp_credentials WHERE session_key = ? ORDER BY created_at, id`,
    ),
    touch: db.prepare(`UPDATE mcp_credentials SET last_used_at = ? WHERE id = ?`),
    touchClient: db.prepare(`UPDATE mcp_credentials SET last_used_at = ?, client = ? WHERE id = ?`),
    remove: db.prepare(`DELETE FROM mcp_credentials WHERE id = ?`),
    removeAcp: db.prepare(`DELETE FROM mcp_credentials WHERE kind = 'acp' AND session_key = ?`),
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

  /**
   * A credential whose row is written by `save`: for an agent started before its session exists
   * (the row references the session), saved in the transaction that makes the session.
   */
  const prepare = (input: IssueInput) => {
    const id = crypto.randomUUID();
    const secret = SECRET_PREFIX + crypto.randomBytes(32).toString('base64url');
    const save = () =>
      void s.insert.run(
        id,
        input.sessionKey,
        input.kind,
        input.label ?? null,
        hashSecret(secret),
        input.port,
        now(),
      );
    return { id, secret, save };
  };

  return {
    /** A new credential; the secret is returned here and nowhere else. */
    issue(input: IssueInput) {
      const c = prepare(input);
      c.save();
      return { id: c.id, secret: c.secret };
    },
    prepare,
    /** The credential a presented secret belongs to, if any. */
    verify(secret: string): Credential | undefined {
      if (!secret.startsWith(SECRET_PREFIX) || secret.length > 200) return undefined;
      const row = s.byHash.get(hashSecret(secret));
      return row ? toCredential(row) : undefined;
    },
    /** A client called with it; `client` is its clientInfo.name when the call was `initialize`. */
    touch(id: string, client?: string): void {
      if (client === undefined) s.touch.run(now(), id);
      else s.touchClient.run(now(), client, id);
    },
    list(sessionKey?: string): Credential[] {
      return (sessionKey === undefined ? s.all.all() : s.bySession.all(sessionKey)).map(toCredential);
    },
    revoke: (id: string): boolean => s.remove.run(id).changes > 0,
    /** An ACP child's agent ended or restarts: its secret dies with it. */
    revokeAcp: (sessionKey: string): void => void s.removeAcp.run(sessionKey),
    /** At start-up: no ACP agent of an earlier run is alive any more. */
    revokeAllAcp: (): number => s.removeAllAcp.run().changes,
    hasExternal: (): boolean => (s.countExternal.get()?.n ?? 0) > 0,
    savedPort: (): number | undefined => s.port.get()?.port,
    savePort: (port: number): void => void s.savePort.run(port, now()),
  };
}
