// ACP agent profiles (settings): name, command, arguments, environment, working directory.
import type { Db } from '../../db/open';
import { invalidArgument } from '../../errors';
import type { AcpProfile } from '../../types';

interface ProfileDbRow {
  id: string;
  name: string;
  command: string;
  args: string;
  env: string;
  cwd: string | null;
}

const ID_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export type AcpProfileStore = ReturnType<typeof createAcpProfileStore>;

export function createAcpProfileStore(db: Db, now: () => number) {
  const s = {
    list: db.prepare<[], ProfileDbRow>(`SELECT * FROM acp_profiles ORDER BY name`),
    get: db.prepare<[string], ProfileDbRow>(`SELECT * FROM acp_profiles WHERE id = ?`),
    upsert: db.prepare(
      `INSERT INTO acp_profiles (id, name, command, args, env, cwd, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, command = excluded.command, args = excluded.args,
         env = excluded.env, cwd = excluded.cwd, updated_at = excluded.updated_at`,
    ),
    remove: db.prepare(`DELETE FROM acp_profiles WHERE id = ?`),
  };
  const toProfile = (r: ProfileDbRow): AcpProfile => ({
    id: r.id,
    name: r.name,
    command: r.command,
    args: JSON.parse(r.args) as string[],
    env: JSON.parse(r.env) as Record<string, string>,
    ...(r.cwd ? { cwd: r.cwd } : {}),
  });
  return {
    list: () => s.list.all().map(toProfile),
    get: (id: string) => {
      const r = s.get.get(id);
      return r ? toProfile(r) : undefined;
    },
    save(p: AcpProfile): AcpProfile {
      if (!p || typeof p.id !== 'string' || !ID_RE.test(p.id))
        throw invalidArgument('profile id must match [a-z0-9][a-z0-9_-]{0,63}');
      if (typeof p.name !== 'string' || !p.name.trim()) throw invalidArgument('profile name is required');
      if (typeof p.command !== 'string' || !p.command.trim())
        throw invalidArgument('profile command is required');
      if (!Array.isArray(p.args) || p.args.some((a) => typeof a !== 'string'))
        throw invalidArgument('profile args must be strings');
      const env = p.env ?? {};
      if (Object.values(env).some((v) => typeof v !== 'string'))
        throw invalidArgument('profile env values must be strings');
      s.upsert.run(
        p.id,
        p.name.trim(),
        p.command.trim(),
        JSON.stringify(p.args),
        JSON.stringify(env),
        p.cwd ?? null,
        now(),
      );
      return this.get(p.id)!;
    },
    remove: (id: string) => s.remove.run(id).changes > 0,
  };
}
