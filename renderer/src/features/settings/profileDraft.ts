// An ACP profile as the form edits it: the fields as typed, and what acp:profiles:save gets from
// them. Environment values are secrets: the page only ever sees them masked, and a masked line
// left as it was keeps the stored value.
import type { AcpProfileView, ArgsOf, Reach } from '../../../../shared/ipc';
import { SECRET_MASK } from '../../../../shared/secrets';
import { needsDraft, withNeeds, type NeedsDraft } from './ProfileNeeds';

/** `Fixture agent` → `fixture-agent`: a default id for a new profile. */
export function slug(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+|-+$/g, '')
    .slice(0, 64);
}

/** One argument per line; blank lines are ignored. */
export function parseArgs(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.replace(/\r$/, ''))
    .filter((l) => l.trim() !== '');
}

/** `KEY=VALUE` per line (the value may contain `=`); blank lines are ignored. */
export function parseEnv(text: string): { env: Record<string, string> } | { error: string } {
  const env: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, '');
    if (line.trim() === '') continue;
    const eq = line.indexOf('=');
    if (eq <= 0) return { error: `env line ${i + 1}: expected KEY=VALUE` };
    const key = line.slice(0, eq).trim();
    if (key in env) return { error: `env line ${i + 1}: ${key} is set twice` };
    env[key] = line.slice(eq + 1);
  }
  return { env };
}

/** Lines still showing the stored (masked) value keep it; the others are new values. */
export function splitKept(
  env: Record<string, string>,
  shown: Record<string, string>,
): { env: Record<string, string>; keepEnv: string[] } {
  const fresh: Record<string, string> = {};
  const keepEnv: string[] = [];
  for (const [k, v] of Object.entries(env)) {
    if (v.startsWith(SECRET_MASK) && shown[k] === v) keepEnv.push(k);
    else fresh[k] = v;
  }
  return { env: fresh, keepEnv };
}

const envText = (env: Record<string, string>) =>
  Object.entries(env)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');

export interface ProfileDraft {
  id: string;
  name: string;
  command: string;
  /** One argument per line. */
  args: string;
  /** `KEY=VALUE` lines, stored values masked. */
  env: string;
  cwd: string;
  allowAgents: boolean;
  askTerminal: boolean;
  reach: Reach;
  /** A known agent's own fields (API key, base URL, IS_SANDBOX), on a profile that has them. */
  needs: NeedsDraft | undefined;
}

/** The form's fields for an existing profile, or empty ones for a new profile. */
export function draftOf(profile?: AcpProfileView): ProfileDraft {
  return {
    id: profile?.id ?? '',
    name: profile?.name ?? '',
    command: profile?.command ?? '',
    args: profile?.args.join('\n') ?? '',
    env: envText(profile?.env ?? {}),
    cwd: profile?.cwd ?? '',
    allowAgents: profile?.allowAgents ?? false,
    askTerminal: profile?.askTerminal ?? false,
    reach: profile?.reach ?? 'agent',
    needs: profile?.needs && needsDraft(profile),
  };
}

/** The id it is saved under: an existing profile keeps its own; a new one the typed id, else its name's slug. */
const draftId = (d: ProfileDraft, profile?: AcpProfileView): string =>
  profile ? profile.id : d.id.trim() || slug(d.name);

/** What acp:profiles:save gets, or the env line that is not `KEY=VALUE`. */
export function saveInput(
  d: ProfileDraft,
  profile?: AcpProfileView,
): ArgsOf<'acp:profiles:save'> | { error: string } {
  const parsedEnv = parseEnv(d.env);
  if ('error' in parsedEnv) return parsedEnv;
  const kept = splitKept(parsedEnv.env, profile?.env ?? {});
  const split = profile?.needs && d.needs ? withNeeds(profile.needs, d.needs, kept) : kept;
  return {
    id: draftId(d, profile),
    name: d.name,
    command: d.command,
    args: parseArgs(d.args),
    env: split.env,
    ...(split.keepEnv.length ? { keepEnv: split.keepEnv } : {}),
    cwd: d.cwd.trim(),
    allowAgents: d.allowAgents,
    askTerminal: d.askTerminal,
    reach: d.reach,
  };
}
