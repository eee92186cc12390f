// Configured agents. Agent `main` exists by default, with main session `agent:main:main`. The API
// key is sealed at rest (trust/secrets.ts); a base URL must be one a key may go to, and a change of
// the key's destination needs the key again (trust/base-url.ts).
import {
  AGENT_ID_PATTERN,
  mainKeyFor,
  normalizeSessionKey,
  parseSessionKey,
} from '../../../shared/session-keys';
import type { Transactions } from '../db/transactions';
import { invalidArgument } from '../errors';
import { baseUrlProblem, keyDestination } from '../trust/base-url';
import type { Secrets } from '../trust/secrets';
import type { AgentConfig, Logger, ProviderId, Sessions } from '../types';
import type { AgentRecord, AgentRepository, AgentRow } from './agent-repository';

const PROVIDERS: readonly ProviderId[] = ['scripted', 'openai', 'anthropic'];

export const DEFAULT_SYSTEM_PROMPT =
  'Role: coordinator. You supervise a fleet of sessions. Split work into sub-agents with sessions_spawn, ' +
  'and when a stale-state notice arrives, call session_status with its changesSince before acting.';

/** What the Settings form changes (the agents:save channel): only the fields it names. */
export interface AgentChanges {
  id: string;
  name?: string;
  provider?: ProviderId;
  model?: string;
  baseUrl?: string;
  /** A new key; never returned. */
  apiKey?: string;
  clearApiKey?: boolean;
  systemPrompt?: string;
  heartbeatSeconds?: number;
}

function toConfig(r: AgentRow, open: (stored: string) => string): AgentConfig {
  const settings = JSON.parse(r.provider_settings) as Record<string, string>;
  if (settings.apiKey) settings.apiKey = open(settings.apiKey);
  return {
    id: r.id,
    name: r.name,
    provider: r.provider,
    providerSettings: settings,
    systemPrompt: r.system_prompt,
    heartbeatSeconds: r.heartbeat_seconds,
    mainKey: r.main_key,
  };
}

/**
 * The agent a save writes: the input's fields over the current ones, each checked (the row's
 * settings are still open here; the store seals the key).
 */
function checkedAgent(
  input: Partial<AgentConfig> & { id: string },
  current: AgentConfig | undefined,
): Omit<AgentRecord, 'settings' | 'now'> & { settings: Record<string, string> } {
  if (!input || typeof input.id !== 'string') throw new Error('agent id is required');
  const id = input.id.toLowerCase();
  if (!AGENT_ID_PATTERN.test(id))
    throw new Error(`agent id must match [a-z0-9][a-z0-9_-]{0,63}: "${input.id}"`);
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
  const problem = settings.baseUrl?.trim() ? baseUrlProblem(settings.baseUrl.trim()) : undefined;
  if (problem) throw invalidArgument(problem);
  const mainKey = input.mainKey ? normalizeSessionKey(input.mainKey) : (current?.mainKey ?? mainKeyFor(id));
  if (parseSessionKey(mainKey).agentId !== id) throw new Error(`mainKey must belong to agent "${id}"`);
  return {
    id,
    name: input.name ?? current?.name ?? id,
    provider,
    settings,
    systemPrompt: input.systemPrompt ?? current?.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
    heartbeatSeconds,
    mainKey,
  };
}

export type AgentStore = ReturnType<typeof createAgentStore>;

export function createAgentStore(
  rows: AgentRepository,
  now: () => number,
  secrets: Secrets,
  logger?: Logger,
) {
  const open = (stored: string): string => {
    try {
      return secrets.open(stored);
    } catch (err) {
      logger?.warn('agents: an API key cannot be unsealed; enter it again in Settings', {
        error: String(err),
      });
      return '';
    }
  };
  const sealed = (settings: Record<string, string>) =>
    JSON.stringify(settings.apiKey ? { ...settings, apiKey: secrets.seal(settings.apiKey) } : settings);
  const mainKeys = new Set<string>();
  const refresh = () => {
    mainKeys.clear();
    for (const a of rows.list()) mainKeys.add(a.main_key);
  };

  const store = {
    list: (): AgentConfig[] => rows.list().map((r) => toConfig(r, open)),
    get: (id: string): AgentConfig | undefined => {
      const r = rows.get(id.toLowerCase());
      return r ? toConfig(r, open) : undefined;
    },
    isMainKey: (key: string): boolean => mainKeys.has(key),
    save(input: Partial<AgentConfig> & { id: string }): AgentConfig {
      const id = typeof input?.id === 'string' ? input.id.toLowerCase() : '';
      const agent = checkedAgent(input, id ? store.get(id) : undefined);
      rows.upsert({ ...agent, settings: sealed(agent.settings), now: now() });
      refresh();
      return store.get(agent.id)!;
    },
    /** Seals keys stored before a keyring was available (start-up). */
    resealAll(): void {
      for (const r of rows.list()) {
        const settings = JSON.parse(r.provider_settings) as Record<string, string>;
        if (settings.apiKey && secrets.needsSealing(settings.apiKey))
          rows.setSettings(r.id, sealed({ ...settings, apiKey: open(settings.apiKey) }));
      }
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
  const service = {
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
    /**
     * The person's changes from Settings: only the named fields change. The stored key stays only
     * while its destination does: a base URL (or provider) that sends it to another host needs the
     * key again, or its removal.
     */
    update(c: AgentChanges): AgentConfig {
      const id = c.id.toLowerCase();
      const current = agents.get(id);
      const settings: Record<string, string> = { ...current?.providerSettings };
      if (c.model !== undefined) settings.model = c.model;
      if (c.baseUrl !== undefined) settings.baseUrl = c.baseUrl;
      const provider = c.provider ?? current?.provider ?? 'scripted';
      const kept = settings.apiKey;
      if (c.apiKey !== undefined && c.apiKey !== '') settings.apiKey = c.apiKey;
      else if (c.clearApiKey) settings.apiKey = '';
      else if (
        kept &&
        current &&
        keyDestination(provider, settings.baseUrl) !==
          keyDestination(current.provider, current.providerSettings.baseUrl)
      ) {
        const to = keyDestination(provider, settings.baseUrl) ?? 'another host';
        throw invalidArgument(
          `The API key would now go to ${to}: enter the API key again for it (or remove the key)`,
        );
      }
      return service.save({
        id,
        providerSettings: settings,
        ...(c.name !== undefined ? { name: c.name } : {}),
        ...(c.provider !== undefined ? { provider: c.provider } : {}),
        ...(c.systemPrompt !== undefined ? { systemPrompt: c.systemPrompt } : {}),
        ...(c.heartbeatSeconds !== undefined ? { heartbeatSeconds: c.heartbeatSeconds } : {}),
      });
    },
    /** Agent `main` and its main session exist by default. */
    ensureDefault: () =>
      withMainSession(
        () => agents.ensureDefault(),
        () => 'Main',
      ),
  };
  return service;
}
