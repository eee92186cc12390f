// The rows of `mcp_credentials` and `mcp_endpoint` (migrations 010, 017): the MCP domain's SQL.
// Only outside agents' credentials are stored, as a SHA-256 of the secret (credentials.ts says why).
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

function statements(db: Db) {
  return {
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
}

export interface StoredCredential {
  id: string;
  sessionKey: string;
  label?: string;
  hash: string;
  port: number;
  createdAt: number;
  reach: Reach;
}

export type CredentialRepository = ReturnType<typeof createCredentialRepository>;

export function createCredentialRepository(db: Db) {
  const s = statements(db);
  return {
    insertExternal: (c: StoredCredential): void =>
      void s.insert.run(
        c.id,
        c.sessionKey,
        'external',
        c.label ?? null,
        c.hash,
        c.port,
        c.createdAt,
        c.reach,
      ),
    byHash: (hash: string): Credential | undefined => {
      const row = s.byHash.get(hash);
      return row ? toCredential(row) : undefined;
    },
    list: (sessionKey?: string): Credential[] =>
      (sessionKey === undefined ? s.all.all() : s.bySession.all(sessionKey)).map(toCredential),
    touch: (id: string, at: number, client?: string): void =>
      void (client === undefined ? s.touch.run(at, id) : s.touchClient.run(at, client, id)),
    remove: (id: string): boolean => s.remove.run(id).changes > 0,
    removeAllAcp: (): number => s.removeAllAcp.run().changes,
    countExternal: (): number => s.countExternal.get()?.n ?? 0,
    savedPort: (): number | undefined => s.port.get()?.port,
    savePort: (port: number, at: number): void => void s.savePort.run(port, at),
  };
}
