// Authentication as a path (issue 28.5): an agent that answers authRequired (-32000) shows the
// person its `authMethods` and what each needs — ACP `authenticate` for the agent's own methods,
// its login command line for a terminal method (the person runs it where they can see it), or an
// API key for the profile (stored sealed with it, asked through the profile's consent, given to
// the next agent in its environment only) — and then Retry sends the prompt again.
import type { AcpAuthView, AuthMethodView } from '../../../../shared/ipc/agents';
import { invalidArgument, notFound } from '../../errors';
import { needsOfCommand } from './agent-needs';
import type { AcpProfiles } from './profiles';
import type { AuthMethod } from '@agentclientprotocol/sdk';
import type { StoredAcpProfile } from './profile-store';

export interface AuthSessions {
  auth(key: string): { profile: StoredAcpProfile; methods: AuthMethod[] } | undefined;
  authenticate(key: string, methodId: string): Promise<void>;
  useProfile(key: string, profile: StoredAcpProfile): void;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** ACP 1 has no key-method type: an agent method is one when its id, name or text says "API key". */
const API_KEY = /api[-_ ]?key/i;
/** The variable such a method names (Gemini: "… `GEMINI_API_KEY` …"; the fixture: "Set FIXTURE_API_KEY"). */
const KEY_VAR = /\b([A-Z][A-Z0-9_]*_KEY)\b/;

function methodView(m: AuthMethod, p: StoredAcpProfile): AuthMethodView {
  const base = { id: m.id, name: m.name, ...(m.description ? { description: m.description } : {}) };
  if ('type' in m && m.type === 'terminal')
    return { ...base, kind: 'terminal', command: [p.command, ...p.args, ...(m.args ?? [])] };
  if (API_KEY.test(`${m.id} ${m.name} ${m.description ?? ''}`)) {
    const keyEnv = KEY_VAR.exec(m.description ?? '')?.[1];
    return { ...base, kind: 'apiKey', ...(keyEnv ? { keyEnv } : {}) };
  }
  return { ...base, kind: 'agent' };
}

export function createAcpAuth(deps: { sessions: AuthSessions; profiles: AcpProfiles }) {
  const { sessions, profiles } = deps;
  const live = (key: string) => {
    const a = sessions.auth(key);
    if (!a) throw notFound(`No ACP agent runs in ${key}`);
    return a;
  };
  return {
    view(sessionKey: string): AcpAuthView {
      const { profile, methods } = live(sessionKey);
      const views = methods.map((m) => methodView(m, profile));
      // The key variable the agent is known to read, else the one its API-key method names.
      const apiKeyEnv =
        needsOfCommand(profile.command, profile.args).apiKeyEnv ?? views.find((v) => v.keyEnv)?.keyEnv;
      return {
        sessionKey,
        profileId: profile.id,
        profileName: profile.name,
        methods: views,
        ...(apiKeyEnv ? { apiKeyEnv } : {}),
        hasKey: apiKeyEnv !== undefined && Boolean(profile.env[apiKeyEnv]),
      };
    },

    /** ACP `authenticate` with one of the agent's own (non-terminal) methods. */
    async authenticate(sessionKey: string, methodId: string): Promise<void> {
      const { methods } = live(sessionKey);
      const m = methods.find((x) => x.id === methodId);
      if (!m) throw invalidArgument(`The agent offers no method ${methodId}`);
      if ('type' in m && m.type === 'terminal')
        throw invalidArgument(`${m.name} runs in a terminal: run the command it shows there`);
      await sessions.authenticate(sessionKey, methodId);
    },

    /** An API key into the profile (the person allows the changed command line), for the next agent. */
    async setKey(sessionKey: string, name: string, value: string): Promise<void> {
      if (!ENV_NAME.test(name)) throw invalidArgument('The key variable must match [A-Za-z_][A-Za-z0-9_]*');
      if (!value.trim()) throw invalidArgument('The API key is empty');
      const { profile } = live(sessionKey);
      const { rev: _rev, ...plain } = profile;
      await profiles.propose({ ...plain, env: { ...profile.env, [name]: value.trim() } });
      sessions.useProfile(sessionKey, profiles.stored.get(profile.id)!);
    },
  };
}

export type AcpAuth = ReturnType<typeof createAcpAuth>;
