// People on a shared gateway: accounts, one-time invitations and the audit trail, in the serve
// gateway's own SQLite file (serve.db beside the state database; WAL, so a SIGKILL loses no
// committed row). Codes and credentials are stored only as SHA-256 hashes: the database file
// alone lets nobody in. Every statement of these tables lives in this module.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { openSqlite, type Db } from '../gateway/db/sqlite';

export type Role = 'owner' | 'member';

export interface Account {
  /** The actor id of this person's turns in the signal log: `user:<name>`. */
  id: string;
  name: string;
  role: Role;
  createdAt: number;
  revokedAt?: number;
}

export interface AuditEntry {
  id: number;
  at: number;
  accountId: string;
  action: string;
  target?: string;
  detail?: string;
}

/** An invitation is good for a week, once. */
export const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS accounts (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, role TEXT NOT NULL CHECK (role IN ('owner', 'member')),
  secret_hash TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL, revoked_at INTEGER
);
CREATE TABLE IF NOT EXISTS invites (
  code_hash TEXT PRIMARY KEY, role TEXT NOT NULL, created_by TEXT, created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL, used_at INTEGER, used_by TEXT
);
CREATE TABLE IF NOT EXISTS audit (
  id INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, account_id TEXT NOT NULL,
  action TEXT NOT NULL, target TEXT, detail TEXT
);
CREATE INDEX IF NOT EXISTS audit_at ON audit (at);
`;

const hash = (secret: string) => crypto.createHash('sha256').update(secret).digest('hex');
const code = (prefix: string, bytes: number) => `${prefix}${crypto.randomBytes(bytes).toString('base64url')}`;

interface AccountRow {
  id: string;
  name: string;
  role: Role;
  created_at: number;
  revoked_at: number | null;
}
const toAccount = (r: AccountRow): Account => ({
  id: r.id,
  name: r.name,
  role: r.role,
  createdAt: r.created_at,
  ...(r.revoked_at !== null ? { revokedAt: r.revoked_at } : {}),
});

export type Accounts = ReturnType<typeof openAccounts>;

export function openAccounts(dataDir: string, now: () => number = Date.now) {
  const dir = path.join(dataDir, 'serve');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const db = openSqlite(path.join(dir, 'serve.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.exec(SCHEMA);
  const s = prepare(db);

  const redeem = db.transaction((inviteCode: string, name: string) => {
    const h = hash(inviteCode);
    const inv = s.invite.get(h);
    if (!inv || inv.used_at !== null || inv.expires_at <= now()) return undefined;
    const secret = code('slc_', 32);
    const id = newId(s, name);
    s.addAccount.run(id, name, inv.role, hash(secret), now());
    s.useInvite.run(now(), id, h);
    return { account: toAccount(s.byId.get(id)!), credential: secret };
  });

  return {
    /** A new one-time code. The first invitation of a gateway without an owner makes its owner. */
    invite(createdBy: string | undefined, role?: Role): { code: string; role: Role; expiresAt: number } {
      const r: Role = role ?? (s.owners.get()!.n === 0 ? 'owner' : 'member');
      const c = code('inv_', 18);
      const expiresAt = now() + INVITE_TTL_MS;
      s.addInvite.run(hash(c), r, createdBy ?? null, now(), expiresAt);
      return { code: c, role: r, expiresAt };
    },
    /** Uses the code once: a new account and its credential (shown once), or undefined. */
    redeem(inviteCode: string, name: string): { account: Account; credential: string } | undefined {
      if (typeof inviteCode !== 'string' || inviteCode.length > 200) return undefined;
      return redeem(inviteCode, name);
    },
    /** The live account a credential belongs to; undefined when unknown or revoked. */
    authenticate(credential: unknown): Account | undefined {
      if (typeof credential !== 'string' || credential.length > 200) return undefined;
      const row = s.byHash.get(hash(credential));
      return row && row.revoked_at === null ? toAccount(row) : undefined;
    },
    get: (id: string): Account | undefined => {
      const row = s.byId.get(id);
      return row ? toAccount(row) : undefined;
    },
    list: (): Account[] => s.list.all().map(toAccount),
    /** True when the account was live and is now revoked. */
    revoke: (id: string): boolean => s.revoke.run(now(), id).changes === 1,
    record(accountId: string, action: string, target?: string, detail?: string): void {
      s.audit.run(now(), accountId, action, target ?? null, detail?.slice(0, 500) ?? null);
    },
    /** Newest first, `limit` entries before `beforeId`. */
    audit(opts: { beforeId?: number; limit?: number } = {}): AuditEntry[] {
      return s.auditPage
        .all(opts.beforeId ?? Number.MAX_SAFE_INTEGER, Math.min(opts.limit ?? 100, 500))
        .map((r) => ({
          id: r.id,
          at: r.at,
          accountId: r.account_id,
          action: r.action,
          ...(r.target !== null ? { target: r.target } : {}),
          ...(r.detail !== null ? { detail: r.detail } : {}),
        }));
    },
    close: () => db.close(),
  };
}

/** Every statement of the people's tables. */
function prepare(db: Db) {
  return {
    byHash: db.prepare<[string], AccountRow>(
      `SELECT id, name, role, created_at, revoked_at FROM accounts WHERE secret_hash = ?`,
    ),
    byId: db.prepare<[string], AccountRow>(
      `SELECT id, name, role, created_at, revoked_at FROM accounts WHERE id = ?`,
    ),
    list: db.prepare<[], AccountRow>(
      `SELECT id, name, role, created_at, revoked_at FROM accounts ORDER BY created_at`,
    ),
    owners: db.prepare<[], { n: number }>(
      `SELECT count(*) AS n FROM accounts WHERE role = 'owner' AND revoked_at IS NULL`,
    ),
    addAccount: db.prepare(
      `INSERT INTO accounts (id, name, role, secret_hash, created_at) VALUES (?, ?, ?, ?, ?)`,
    ),
    revoke: db.prepare(`UPDATE accounts SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`),
    addInvite: db.prepare(
      `INSERT INTO invites (code_hash, role, created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`,
    ),
    invite: db.prepare<[string], { role: Role; expires_at: number; used_at: number | null }>(
      `SELECT role, expires_at, used_at FROM invites WHERE code_hash = ?`,
    ),
    useInvite: db.prepare(
      `UPDATE invites SET used_at = ?, used_by = ? WHERE code_hash = ? AND used_at IS NULL`,
    ),
    audit: db.prepare(`INSERT INTO audit (at, account_id, action, target, detail) VALUES (?, ?, ?, ?, ?)`),
    auditPage: db.prepare<
      [number, number],
      {
        id: number;
        at: number;
        account_id: string;
        action: string;
        target: string | null;
        detail: string | null;
      }
    >(`SELECT id, at, account_id, action, target, detail FROM audit WHERE id < ? ORDER BY id DESC LIMIT ?`),
  };
}

/** `user:<name>` made safe for an actor id; `-2`, `-3`… when the name is taken. */
function newId(s: ReturnType<typeof prepare>, name: string): string {
  const base = `user:${
    name
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 48) || 'person'
  }`;
  let id = base;
  for (let n = 2; s.byId.get(id); n++) id = `${base}-${n}`;
  return id;
}
