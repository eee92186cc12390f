// Configured agents. Agent `main` exists by default, with main session `agent:main:main`.
import {
  AGENT_ID_PATTERN,
  mainKeyFor,
  normalizeSessionKey,
  parseSessionKey,
} from '../../../shared/session-keys';
import type { Db } from '../db/open';
import type { Transactions } from '../db/transactions';
import type { AgentConfig, ProviderId, Sessions } from '../types';

interface AgentDbRow {
  id: string;
  name: string;
  provider: ProviderId;
  provider_settings: string;
  system_prompt: string;
  heartbeat_seconds: number;
  main_key: string;
}

const PROVIDERS: readonly ProviderId[] = ['scripted', 'openai', 'anthropic'];

export const DEFAULT_SYSTEM_PROMPT =
  'Role: coordinator. You supervise a fleet of sessions. Split work into sub-agents with sessions_spawn, ' +
  'and when a stale-state notice arrives, call session_status with its changesSince before acting.';

function toConfig(r: AgentDbRow): AgentConfig {
  return {
    id: r.id,
    name: r.name,
    provider: r.provider,
    providerSettings: JSON.parse(r.provider_settings) as Record<string, string>,
    systemPrompt: r.system_prompt,
    heartbeatSeconds: r.heartbeat_seconds,
    mainKey: r.main_key,
  };
}

export type AgentStore = ReturnType<typeof createAgentStore>;

export function createAgentStore(db: Db, now: () => number) {
  const s = {
    list: db.prepare<[], AgentDbRow>(`SELECT * FROM agents ORDER BY id`),
    get: db.prepare<[string], AgentDbRow>(`SELECT * FROM agents WHERE id = ?`),
    byMainKey: db.prepare<[string], { id: string }>(`SELECT id FROM agents WHERE main_key = ?`),
    upsert: db.prepare(
      `INSERT INTO agents (id, name, provider, provider_settings, system_prompt, heartbeat_seconds, main_key, created_at, updated_at)
       VALUES (@id, @name, @provider, @settings, @systemPrompt, @heartbeatSeconds, @mainKey, @now, @now)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, provider = excluded.provider,
         provider_settings = excluded.provider_settings, system_prompt = excluded.system_prompt,
         heartbeat_seconds = excluded.heartbeat_seconds, main_key = excluded.main_key, updated_at = excluded.updated_at`,
    ),
  };
  const mainKeys = new Set<string>();
  const refresh = () => {
    mainKeys.clear();
    for (const a of s.list.all()) mainKeys.add(a.main_key);
  };

  const store = {
    list: (): AgentConfig[] => s.list.all().map(toConfig),
    get: (id: string): AgentConfig | undefined => {
      const r = s.get.get(id.toLowerCase());
      return r ? toConfig(r) : undefined;
    },
    isMainKey: (key: string): boolean => mainKeys.has(key),
    save(input: Partial<AgentConfig> & { id: string }): AgentConfig {
      if (!input || typeof input.id !== 'string') throw new Error('agent id is required');
      const id = input.id.toLowerCase();
      if (!AGENT_ID_PATTERN.test(id))
        throw new Error(`agent id must match [a-z0-9][a-z0-9_-]{0,63}: "${input.id}"`);
      const current = store.get(id);
      const provider = input.provider ?? current?.provider ?? 'scripted';
      if (!PROVIDERS.includes(provider)) throw new Error(`unknown model provider "${String(provider)}"`);
      const heartbeatSeconds = input.heartbeatSeconds ?? current?.heartbeatSeconds ?? 0;
      if (!Number.isInteger(heartbeatSeconds) || heartbeatSeconds < 0 || heartbeatSeconds > 86_400) {
        throw new Error('heartbeatSeconds must be an integer between 0 and 86400');
      }
      const settings = input.providerSettings ?? current?.providerSettings ?? {};
      for (const [k, v] of Object.entries(settings)) {
        if (typeof v !== 'string') throw new Error(`provider setting "${k}" must be a string`);
      }
      const mainKey = input.mainKey
        ? normalizeSessionKey(input.mainKey)
        : (current?.mainKey ?? mainKeyFor(id));
      if (parseSessionKey(mainKey).agentId !== id) throw new Error(`mainKey must belong to agent "${id}"`);
      s.upsert.run({
        id,
        name: input.name ?? current?.name ?? id,
        provider,
        settings: JSON.stringify(settings),
        systemPrompt: input.systemPrompt ?? current?.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
        heartbeatSeconds,
        mainKey,
        now: now(),
      });
      refresh();
      return store.get(id)!;
    },
    ensureDefault(): AgentConfig {
      return (
        store.get('main') ??
        store.save({ id: 'main', name: 'Main', provider: 'scripted', heartbeatSeconds: 300 })
      );
    },
  };
  refresh();
  return store;
}

/**
 * `gateway.agents`: saving an agent also makes its main session (one transaction) and picks up a
 * new heartbeat interval.
 */
export function createAgentsService(deps: {
  tx: Transactions;
  agents: AgentStore;
  sessions: Pick<Sessions, 'create' | 'get'>;
  heartbeats: { refresh(): void };
}) {
  const { tx, agents, sessions } = deps;
  const withMainSession = (save: () => AgentConfig, label: (a: AgentConfig) => string) =>
    tx.run(() => {
      const agent = save();
      if (!sessions.get(agent.mainKey)) sessions.create({ key: agent.mainKey, label: label(agent) });
      return agent;
    });
  return {
    list: () => agents.list(),
    get: (id: string) => agents.get(id),
    save(cfg: Partial<AgentConfig> & { id: string }): AgentConfig {
      const saved = withMainSession(
        () => agents.save(cfg),
        (a) => a.name,
      );
      deps.heartbeats.refresh();
      return saved;
    },
    /** Agent `main` and its main session exist by default. */
    ensureDefault: () =>
      withMainSession(
        () => agents.ensureDefault(),
        () => 'Main',
      ),
  };
}
