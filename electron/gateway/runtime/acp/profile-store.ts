// ACP agent profiles (settings): name, command, arguments, environment (sealed at rest: its values
// are secrets), working directory, whether agents may start it, whether its terminal commands need
// the person. `rev` changes whenever the command line (command, args, env, cwd) changes, so the
// person's consent, remembered per revision, is asked again for a changed command line.
import { randomUUID } from 'node:crypto';
import { DEFAULT_ACP_REACH, isReach, type Reach } from '../../../../shared/ipc/reach';
import type { Db } from '../../db/open';
import { invalidArgument } from '../../errors';
import type { Secrets } from '../../trust/secrets';
import type { AcpProfile, Logger } from '../../types';

interface ProfileDbRow {
  id: string;
  name: string;
  command: string;
  args: string;
  env: string;
  cwd: string | null;
  allow_agents: number;
  ask_terminal: number;
  command_rev: string;
  reach: Reach;
}

/** A profile as stored: both flags decided, and the revision of its command line. */
export interface StoredAcpProfile extends AcpProfile {
  allowAgents: boolean;
  askTerminal: boolean;
  reach: Reach;
  rev: string;
}

const ID_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** What makes the command line: a change to any of these is a new command for consent. */
export function sameCommandLine(a: AcpProfile, b: AcpProfile): boolean {
  const env = (p: AcpProfile) =>
    JSON.stringify(Object.entries(p.env ?? {}).sort(([x], [y]) => (x < y ? -1 : 1)));
  return (
    a.command === b.command &&
    JSON.stringify(a.args) === JSON.stringify(b.args) &&
    env(a) === env(b) &&
    (a.cwd ?? '') === (b.cwd ?? '')
  );
}

function check(p: AcpProfile): void {
  if (!p || typeof p.id !== 'string' || !ID_RE.test(p.id))
    throw invalidArgument('profile id must match [a-z0-9][a-z0-9_-]{0,63}');
  if (typeof p.name !== 'string' || !p.name.trim()) throw invalidArgument('profile name is required');
  if (typeof p.command !== 'string' || !p.command.trim())
    throw invalidArgument('profile command is required');
  if (!Array.isArray(p.args) || p.args.some((a) => typeof a !== 'string'))
    throw invalidArgument('profile args must be strings');
  if (Object.values(p.env ?? {}).some((v) => typeof v !== 'string'))
    throw invalidArgument('profile env values must be strings');
  for (const flag of ['allowAgents', 'askTerminal'] as const)
    if (p[flag] !== undefined && typeof p[flag] !== 'boolean')
      throw invalidArgument(`${flag} must be a boolean`);
  if (p.reach !== undefined && !isReach(p.reach))
    throw invalidArgument('reach must be one of tree, agent, all');
}

export type AcpProfileStore = ReturnType<typeof createAcpProfileStore>;

/** The profile table's statements, prepared once. */
function profileStatements(db: Db) {
  return {
    list: db.prepare<[], ProfileDbRow>(`SELECT * FROM acp_profiles ORDER BY name`),
    get: db.prepare<[string], ProfileDbRow>(`SELECT * FROM acp_profiles WHERE id = ?`),
    upsert: db.prepare(
      `INSERT INTO acp_profiles (id, name, command, args, env, cwd, allow_agents, ask_terminal, command_rev, updated_at, reach)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, command = excluded.command, args = excluded.args,
         env = excluded.env, cwd = excluded.cwd, allow_agents = excluded.allow_agents,
         ask_terminal = excluded.ask_terminal, command_rev = excluded.command_rev, updated_at = excluded.updated_at,
         reach = excluded.reach`,
    ),
    setEnv: db.prepare(`UPDATE acp_profiles SET env = ? WHERE id = ?`),
    remove: db.prepare(`DELETE FROM acp_profiles WHERE id = ?`),
  };
}

/** A stored row as a profile, its environment unsealed by `open`. */
function rowToProfile(r: ProfileDbRow, open: (id: string, stored: string) => string): StoredAcpProfile {
  return {
    id: r.id,
    name: r.name,
    command: r.command,
    args: JSON.parse(r.args) as string[],
    env: Object.fromEntries(
      Object.entries(JSON.parse(r.env) as Record<string, string>).map(([k, v]) => [k, open(r.id, v)]),
    ),
    ...(r.cwd ? { cwd: r.cwd } : {}),
    allowAgents: r.allow_agents === 1,
    askTerminal: r.ask_terminal === 1,
    reach: isReach(r.reach) ? r.reach : 'tree', // a hand-written value: the narrowest
    rev: r.command_rev,
  };
}

export function createAcpProfileStore(db: Db, now: () => number, secrets: Secrets, logger?: Logger) {
  const s = profileStatements(db);
  // A value that cannot be unsealed (another machine's keyring) reads as empty, with a warning.
  const open = (id: string, stored: string): string => {
    try {
      return secrets.open(stored);
    } catch (err) {
      logger?.warn('acp: a profile environment value cannot be unsealed', {
        profile: id,
        error: String(err),
      });
      return '';
    }
  };
  const toProfile = (r: ProfileDbRow): StoredAcpProfile => rowToProfile(r, open);
  const get = (id: string): StoredAcpProfile | undefined => {
    const r = s.get.get(id);
    return r ? toProfile(r) : undefined;
  };
  return {
    list: (): StoredAcpProfile[] => s.list.all().map(toProfile),
    get,
    /** Stores the profile; a new or changed command line gets a new revision. */
    save(p: AcpProfile): StoredAcpProfile {
      check(p);
      const input: AcpProfile = {
        ...p,
        name: p.name.trim(),
        command: p.command.trim(),
        env: p.env ?? {},
        ...(p.cwd ? { cwd: p.cwd } : {}),
      };
      const before = get(p.id);
      const rev = before && before.rev && sameCommandLine(before, input) ? before.rev : randomUUID();
      const env = Object.fromEntries(Object.entries(input.env).map(([k, v]) => [k, secrets.seal(v)]));
      s.upsert.run(
        input.id,
        input.name,
        input.command,
        JSON.stringify(input.args),
        JSON.stringify(env),
        input.cwd ?? null,
        (p.allowAgents ?? false) ? 1 : 0,
        (p.askTerminal ?? false) ? 1 : 0,
        rev,
        now(),
        p.reach ?? DEFAULT_ACP_REACH,
      );
      return get(p.id)!;
    },
    remove: (id: string) => s.remove.run(id).changes > 0,
    /** Seals values stored before a keyring was available (start-up). */
    resealAll(): void {
      for (const r of s.list.all()) {
        const env = JSON.parse(r.env) as Record<string, string>;
        if (!Object.values(env).some(secrets.needsSealing)) continue;
        const sealed = Object.fromEntries(
          Object.entries(env).map(([k, v]) => [k, secrets.needsSealing(v) ? secrets.seal(open(r.id, v)) : v]),
        );
        s.setEnv.run(JSON.stringify(sealed), r.id);
      }
    },
  };
}
