// The rows of `agents` (migration 002): the agents domain's SQL. Provider settings are stored as
// JSON with the API key already sealed (agents.ts seals and opens it; trust/secrets.ts).
import type { Db } from '../db/open';
import type { ProviderId } from '../types';

export interface AgentRow {
  id: string;
  name: string;
  provider: ProviderId;
  provider_settings: string;
  system_prompt: string;
  heartbeat_seconds: number;
  main_key: string;
}

/** An agent as it is written: settings already JSON, their key sealed. */
export interface AgentRecord {
  id: string;
  name: string;
  provider: ProviderId;
  settings: string;
  systemPrompt: string;
  heartbeatSeconds: number;
  mainKey: string;
  now: number;
}

export type AgentRepository = ReturnType<typeof createAgentRepository>;

export function createAgentRepository(db: Db) {
  const s = {
    list: db.prepare<[], AgentRow>(`SELECT * FROM agents ORDER BY id`),
    get: db.prepare<[string], AgentRow>(`SELECT * FROM agents WHERE id = ?`),
    setSettings: db.prepare(`UPDATE agents SET provider_settings = ? WHERE id = ?`),
    upsert: db.prepare(
      `INSERT INTO agents (id, name, provider, provider_settings, system_prompt, heartbeat_seconds, main_key, created_at, updated_at)
       VALUES (@id, @name, @provider, @settings, @systemPrompt, @heartbeatSeconds, @mainKey, @now, @now)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, provider = excluded.provider,
         provider_settings = excluded.provider_settings, system_prompt = excluded.system_prompt,
         heartbeat_seconds = excluded.heartbeat_seconds, main_key = excluded.main_key, updated_at = excluded.updated_at`,
    ),
  };
  return {
    list: (): AgentRow[] => s.list.all(),
    get: (id: string): AgentRow | undefined => s.get.get(id),
    upsert: (agent: AgentRecord): void => void s.upsert.run(agent),
    setSettings: (id: string, settings: string): void => void s.setSettings.run(settings, id),
  };
}
