// The API handlers over a small in-memory gateway: envelopes, views, inbox, push batching.
import { describe, expect, it, vi } from 'vitest';
import { createApiHandlers } from '../../electron/gateway/api/handlers';
import { GatewayError } from '../../electron/gateway/errors';
import { createMemoryDismissalStore } from '../../electron/gateway/person/dismissals';
import { createPushBridge } from '../../electron/gateway/api/push-bridge';
import type { GatewayApi } from '../../electron/gateway/api/gateway-api';
import type {
  AcpProfile,
  AgentConfig,
  GatewayEvent,
  PermissionRequestView,
  SessionInfo,
} from '../../electron/gateway/types';
import { MAX_EVENT_ROWS, PRUNE_INTERVAL_MS, RETENTION_MS } from '../../electron/gateway/state/prune';
import { RETENTION } from '../../shared/ipc/limits';
import type { StateEventRow } from '../../shared/domain';
import type { RunInfo } from '../../shared/ipc/types';
import { contextKeyOf, noticeText } from '../helpers/spec';

const APP = { name: 'Sightline', version: '1.0.0', mode: 'web' as const, dataDir: '/tmp/x' };
const unused = (): never => {
  throw new Error('not used by this fake');
};
const SECRETS = { sealed: false, statement: 'stored unencrypted' };

function fakeGateway() {
  const listeners = new Set<(e: GatewayEvent) => void>();
  const sessions: SessionInfo[] = [
    { key: 'agent:main:main', agentId: 'main', createdAt: 1, updatedAt: 1 },
    {
      key: 'agent:main:subagent:w',
      agentId: 'main',
      parentKey: 'agent:main:main',
      createdAt: 2,
      updatedAt: 2,
    },
    { key: 'agent:main:adopted:codex:t-1', agentId: 'main', createdAt: 3, updatedAt: 3 },
  ];
  const agents: AgentConfig[] = [
    {
      id: 'main',
      name: 'Main',
      provider: 'openai',
      providerSettings: { model: 'gpt-x', apiKey: 'sk-secret' },
      systemPrompt: '',
      heartbeatSeconds: 0,
      mainKey: 'agent:main:main',
    },
  ];
  const rows: StateEventRow[] = [5, 4, 3, 2, 1].map((sequence) => ({
    sequence,
    kind: 'child_spawned',
    actorType: 'agent',
    occurredAt: 1000 + sequence,
    summary: 'child session spawned',
    sessionKey: 'agent:main:subagent:w',
    agentId: 'main',
  }));
  const missing: StateEventRow = {
    sequence: 9,
    kind: 'upstream_missing',
    actorType: 'system',
    occurredAt: 2000,
    summary: 'upstream missing via codex',
    payload: { channel: 'codex' },
    sessionKey: 'agent:main:adopted:codex:t-1',
    agentId: 'main',
  };
  const notice = {
    text: noticeText('agent:main:subagent:w', 3),
    contextKey: contextKeyOf('agent:main:subagent:w'),
  };
  const run = (status: RunInfo['status'], inputTokens: number, outputTokens: number): RunInfo => ({
    runId: `r-${inputTokens}`,
    sessionKey: 'agent:main:subagent:w',
    status,
    startedAt: 1,
    inputTokens,
    outputTokens,
  });
  const runs: Record<string, RunInfo[]> = {
    'agent:main:subagent:w': [run('idle', 100, 20), run('idle', 250, 30), run('running', 7, 1)],
  };
  let queued = false;
  const profiles: AcpProfile[] = [
    {
      id: 'fixture',
      name: 'Fixture',
      command: '/usr/bin/node',
      args: ['agent.mjs'],
      env: { A: '1', TOKEN: 'tok-0123456789abcdef' },
    },
  ];
  const permissions: PermissionRequestView[] = [
    {
      id: 'perm-1',
      sessionKey: 'agent:main:acp:0000beef',
      title: 'Delete build/',
      options: [
        { optionId: 'allow-once', name: 'Allow once', kind: 'allow_once' },
        { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
      ],
      createdAt: 5,
    },
  ];
  const gw: GatewayApi = {
    sessions: {
      get: (k) => sessions.find((s) => s.key === k),
      list: () => sessions,
      // Starting and the lifecycle run against a real gateway in test/unit/ipc-sessions.test.ts.
      start: unused,
      impact: unused,
      reset: unused,
      delete: unused,
      archive: unused,
    },
    runs: { list: unused },
    state: {
      version: (k) => (k === 'agent:main:subagent:w' ? 5 : 0),
      versions: () => new Map([['main:agent:main:subagent:w', 5]]),
      timeline: (k, o) =>
        (k === 'agent:main:adopted:codex:t-1' ? [missing] : rows)
          .filter((r) => o.beforeSequence === undefined || r.sequence < o.beforeSequence)
          .slice(0, o.limit),
      watchers: () => ({ watchedBy: [], watching: [] }),
    },
    notices: {
      peek: (k) => (k === 'agent:main:main' ? [notice] : []),
      all: () => [{ sessionKey: 'agent:main:main', entries: [notice, { text: 'unrelated system event' }] }],
    },
    human: { send: vi.fn(async () => {}) },
    catalog: {
      listAsync: async () => [],
      adopt: () => sessions[2]!,
      nodes: {
        add: () => Promise.reject(new Error('no nodes here')),
        list: () => [],
        rename: () => {
          throw new Error('no nodes here');
        },
        remove: () => {},
      },
    },
    events: {
      on(l) {
        listeners.add(l);
        return () => listeners.delete(l);
      },
    },
    agents: {
      list: () => agents,
      save: (cfg) => {
        const i = agents.findIndex((a) => a.id === cfg.id);
        agents[i] = { ...agents[i]!, ...cfg };
        return agents[i]!;
      },
      // The merge itself is the gateway's (runtime/agents.ts, tested in test/trust/secrets.test.ts).
      update: vi.fn((c) => {
        const i = agents.findIndex((a) => a.id === c.id.toLowerCase());
        const settings = { ...agents[i]!.providerSettings };
        if (c.model !== undefined) settings.model = c.model;
        if (c.clearApiKey) settings.apiKey = '';
        agents[i] = { ...agents[i]!, providerSettings: settings };
        return agents[i]!;
      }),
    },
    transcripts: { page: () => ({ messages: [], hasMore: false }), search: () => [], changedFiles: unused },
    status: {
      get: (k) =>
        k === 'agent:main:adopted:codex:t-1'
          ? { status: 'failed', reason: 'the agent crashed', runId: 'r-crash', since: 3000 }
          : { status: 'idle', since: 0 },
      seen: vi.fn(),
    },
    live: { snapshot: () => undefined, activity: () => undefined },
    noticeHistory: {
      page: () => ({ delivered: [], hasMore: false }),
      forTranscript: () => [],
    },
    runtime: {
      status: (k) => runs[k]?.at(-1),
      sessionStatus: (k) =>
        k === 'agent:main:main' && queued ? 'queued' : (runs[k]?.at(-1)?.status ?? 'idle'),
      tokens: (k) => ({
        input: (runs[k] ?? []).reduce((n, r) => n + r.inputTokens, 0),
        output: (runs[k] ?? []).reduce((n, r) => n + r.outputTokens, 0),
      }),
      usage: () => ({ costs: [] }),
      overview(keys) {
        const r = this as GatewayApi['runtime'];
        return new Map(
          keys.map((k) => [k, { run: r.status(k), status: r.sessionStatus(k), tokens: r.tokens(k) }]),
        );
      },
      cancel: () => false,
      retryable: (k) => !k.includes(':adopted:'),
      retry: () => false,
      startDemo: async () => ({ coordinatorKey: 'agent:demo:main', workerKeys: [] }),
      resetDemo: async () => ({ coordinatorKey: 'agent:demo:main', workerKeys: [] }),
    },
    acp: {
      profiles: {
        list: () => profiles,
        get: (id) => profiles.find((p) => p.id === id),
        propose: async (p) => {
          if (p.name === 'reserved') throw new GatewayError('invalid_argument', 'profile name is reserved');
          profiles.push(p);
          return p;
        },
        remove: (id) => {
          const i = profiles.findIndex((p) => p.id === id);
          if (i >= 0) profiles.splice(i, 1);
          return i >= 0;
        },
      },
      registry: { listing: unused, plan: unused, install: unused, installs: { list: unused } },
      // The auth path runs against real agents (test/acp/auth.test.ts); unused here.
      auth: {
        view: () => {
          throw new GatewayError('not_found', 'No ACP agent runs here');
        },
        authenticate: () => Promise.reject(new GatewayError('not_found', 'No ACP agent runs here')),
        setKey: () => Promise.reject(new GatewayError('not_found', 'No ACP agent runs here')),
      },
      permissions: {
        pending: () => permissions,
        respond: vi.fn((id: string, optionId: string | undefined) => {
          const i = permissions.findIndex((p) => p.id === id);
          if (i < 0) return false;
          if (optionId !== undefined && !permissions[i]!.options.some((o) => o.optionId === optionId)) {
            throw new GatewayError('invalid_argument', `Unknown permission option: ${optionId}`);
          }
          permissions.splice(i, 1);
          return true;
        }),
      },
    },
    mcp: {
      issue: async () => ({ id: 'c-1', secret: 'slmcp_x', url: 'http://127.0.0.1:1/mcp' }),
      issueForNewSession: async () => ({
        id: 'c-2',
        sessionKey: 'agent:main:external:x-1',
        secret: 'slmcp_y',
        url: 'http://127.0.0.1:1/mcp',
      }),
      revoke: () => false,
      list: () => [],
      status: () => undefined,
    },
    consent: {
      plug: () => undefined,
      pagePrompt: async () => false,
      confirm: async () => undefined,
      pending: () => [],
      respond: () => {},
    },
    secrets: { info: SECRETS },
    backups: {
      databasePath: '/tmp/x/sightline.db',
      list: () => [
        {
          name: 'sightline-2026-12-02T12-00-00-000Z.db',
          path: '/tmp/x/backups/sightline-2026-12-02T12-00-00-000Z.db',
          takenAt: Date.UTC(2026, 11, 2, 12),
          bytes: 4096,
        },
      ],
    },
    goals: {
      get: () => undefined,
      all: () => new Map(),
      set: (_k, g) => ({ objective: g.objective ?? '', status: g.status ?? 'active', updatedAt: 7 }),
      clear: () => {
        throw new Error('boom');
      },
    },
  };
  return {
    gw,
    emit: (e: GatewayEvent) => listeners.forEach((l) => l(e)),
    listeners,
    agents,
    profiles,
    permissions,
    queue: () => (queued = true),
  };
}

describe('API handlers', () => {
  it('returns envelopes for success, bad arguments, unknown sessions, unknown channels and failures', async () => {
    const { gw } = fakeGateway();
    const api = createApiHandlers(gw, { app: APP, now: () => 42 });
    expect(await api.dispatch('app:info', {})).toEqual({ ok: true, value: { ...APP, secrets: SECRETS } });
    expect(await api.dispatch('sessions:get', { sessionKey: 'agent:main:nope' })).toEqual({
      ok: false,
      error: { code: 'not_found', message: 'Unknown sessionKey: agent:main:nope' },
    });
    expect(await api.dispatch('human:send', { sessionKey: 'agent:main:main' })).toEqual({
      ok: false,
      error: { code: 'invalid_argument', message: 'text: text must be a string' },
    });
    expect(await api.dispatch('nope:nope', {})).toEqual({
      ok: false,
      error: { code: 'unknown_channel', message: 'Unknown channel: nope:nope' },
    });
    expect(await api.dispatch('goals:clear', { sessionKey: 'agent:main:main' })).toEqual({
      ok: false,
      error: { code: 'internal', message: 'boom' },
    });
    await api.dispatch('human:send', { sessionKey: 'AGENT:Main:main', text: 'hi' });
    expect(gw.human.send).toHaveBeenCalledWith('agent:main:main', 'hi', { channel: 'desktop' });
  });

  it('builds session views and the fleet snapshot without API keys', async () => {
    const { gw } = fakeGateway();
    const api = createApiHandlers(gw, { app: APP, now: () => 42 });
    const snap = await api.dispatch('fleet:snapshot', {});
    expect(snap.ok && JSON.stringify(snap.value)).not.toContain('sk-secret');
    expect(snap).toMatchObject({
      ok: true,
      value: {
        generatedAt: 42,
        agents: [{ id: 'main', model: 'gpt-x', baseUrl: '', hasApiKey: true, provider: 'openai' }],
      },
    });
    expect(await api.dispatch('sessions:get', { sessionKey: 'agent:main:main' })).toEqual({
      ok: true,
      value: {
        key: 'agent:main:main',
        agentId: 'main',
        createdAt: 1,
        updatedAt: 1,
        kind: 'main',
        stateVersion: 0,
        runStatus: 'none',
        pendingNotices: 1,
        alert: null,
        goal: null,
        tokens: { input: 0, output: 0 },
        status: { status: 'idle', since: 0 },
      },
    });
  });

  it('saves agents through the gateway’s update and never returns the key', async () => {
    const { gw, agents } = fakeGateway();
    const api = createApiHandlers(gw, { app: APP });
    const r = await api.dispatch('agents:save', { id: 'Main', model: 'gpt-y', apiKey: 'sk-new-key' });
    expect(gw.agents.update).toHaveBeenCalledWith({ id: 'Main', model: 'gpt-y', apiKey: 'sk-new-key' });
    expect(r).toMatchObject({ ok: true, value: { id: 'main', model: 'gpt-y', hasApiKey: true } });
    expect(JSON.stringify(r)).not.toContain('sk-secret');
    expect(agents[0]!.providerSettings).toEqual({ model: 'gpt-y', apiKey: 'sk-secret' });
    await api.dispatch('agents:save', { id: 'main', clearApiKey: true });
    expect(agents[0]!.providerSettings.apiKey).toBe('');
    expect(await api.dispatch('agents:list', {})).toMatchObject({ ok: true, value: [{ hasApiKey: false }] });
  });

  it('pages the timeline with hasMore', async () => {
    const { gw } = fakeGateway();
    const api = createApiHandlers(gw, { app: APP });
    const r = await api.dispatch('timeline:page', { sessionKey: 'agent:main:subagent:w', limit: 2 });
    expect(r).toMatchObject({ ok: true, value: { hasMore: true, stateVersion: 5 } });
    expect(r.ok && (r.value as { events: { sequence: number }[] }).events.map((e) => e.sequence)).toEqual([
      5, 4,
    ]);
    const last = await api.dispatch('timeline:page', {
      sessionKey: 'agent:main:subagent:w',
      beforeSequence: 3,
    });
    expect(last).toMatchObject({ ok: true, value: { hasMore: false } });
  });

  it('lists failed runs and upstream alerts in the inbox; dismissals hide them', async () => {
    const { gw } = fakeGateway();
    const api = createApiHandlers(gw, { app: APP, dismissals: createMemoryDismissalStore() });
    const r = await api.dispatch('inbox:list', {});
    expect(r.ok).toBe(true);
    const items = (r as { value: { id: string; type: string }[] }).value;
    expect(items).toEqual([
      {
        id: 'failed:r-crash',
        type: 'failed',
        sessionKey: 'agent:main:adopted:codex:t-1',
        runId: 'r-crash',
        outcome: 'error',
        reason: 'the agent crashed',
        endedAt: 3000,
        retryable: false,
      },
      {
        id: 'upstream:9:agent:main:adopted:codex:t-1',
        type: 'upstream_missing',
        sessionKey: 'agent:main:adopted:codex:t-1',
        alert: { sequence: 9, summary: 'upstream missing via codex', occurredAt: 2000, channel: 'codex' },
        provider: 'codex',
        threadId: 't-1',
      },
    ]);
    await api.dispatch('inbox:dismiss', { id: items[1]!.id });
    await api.dispatch('inbox:dismiss', { id: items[0]!.id });
    expect(await api.dispatch('inbox:list', {})).toEqual({ ok: true, value: [] });
  });

  it('keeps pending notices out of the queue: they head the history, for their watcher', async () => {
    const { gw } = fakeGateway();
    const api = createApiHandlers(gw, { app: APP });
    const r = await api.dispatch('inbox:history', {});
    expect(r).toEqual({
      ok: true,
      value: {
        pending: [
          {
            id: expect.stringMatching(/^notice:[0-9a-f]{8}:\d+$/) as unknown,
            watcher: 'agent:main:main',
            target: 'agent:main:subagent:w',
            text: noticeText('agent:main:subagent:w', 3),
          },
        ],
        delivered: [],
        hasMore: false,
      },
    });
    expect(await api.dispatch('inbox:history', { beforeId: 5 })).toMatchObject({
      ok: true,
      value: { pending: [] },
    });
  });
});

describe('API handlers: run status, tokens, ACP', () => {
  it('sums tokens over all runs and reports a queued turn', async () => {
    const { gw, queue } = fakeGateway();
    const api = createApiHandlers(gw, { app: APP });
    expect(await api.dispatch('sessions:get', { sessionKey: 'agent:main:subagent:w' })).toMatchObject({
      ok: true,
      value: { runStatus: 'running', tokens: { input: 357, output: 51 } },
    });
    expect(await api.dispatch('sessions:get', { sessionKey: 'agent:main:main' })).toMatchObject({
      ok: true,
      value: { runStatus: 'none', tokens: { input: 0, output: 0 } },
    });
    queue();
    expect(await api.dispatch('sessions:get', { sessionKey: 'agent:main:main' })).toMatchObject({
      ok: true,
      value: { runStatus: 'queued' },
    });
  });

  it('lists, saves and removes ACP profiles', async () => {
    const { gw, profiles } = fakeGateway();
    const api = createApiHandlers(gw, { app: APP });
    // Environment values are secrets: at most their last 4 characters reach the renderer (14.4).
    expect(await api.dispatch('acp:profiles:list', {})).toEqual({
      ok: true,
      value: [
        {
          id: 'fixture',
          name: 'Fixture',
          command: '/usr/bin/node',
          args: ['agent.mjs'],
          env: { A: '••••', TOKEN: '••••cdef' },
          allowAgents: false,
          askTerminal: false,
          reach: 'agent',
        },
      ],
    });
    const flags = { allowAgents: false, askTerminal: false, reach: 'agent' };
    expect(
      await api.dispatch('acp:profiles:save', { id: 'codex', name: 'Codex', command: 'codex-acp', cwd: '' }),
    ).toEqual({
      ok: true,
      value: {
        id: 'codex',
        name: 'Codex',
        command: 'codex-acp',
        args: [],
        env: {},
        ...flags,
        // A known agent's profile says which key it needs (the profile form's key field).
        needs: {
          apiKeyEnv: 'OPENAI_API_KEY',
          baseUrlEnv: 'OPENAI_BASE_URL',
          note: 'Without a key, Codex uses the login of `codex login` on this computer.',
        },
      },
    });
    expect(
      await api.dispatch('acp:profiles:save', { id: 'pi', name: 'Pi', command: 'pi', cwd: '/srv/pi' }),
    ).toEqual({
      ok: true,
      value: { id: 'pi', name: 'Pi', command: 'pi', args: [], env: {}, cwd: '/srv/pi', ...flags },
    });
    // A kept variable is taken from what is stored; the page never had its value.
    await api.dispatch('acp:profiles:save', {
      id: 'fixture',
      name: 'Fixture',
      command: '/usr/bin/node',
      env: { B: '2' },
      keepEnv: ['TOKEN', 'GONE'],
    });
    expect(profiles.at(-1)!.env).toEqual({ TOKEN: 'tok-0123456789abcdef', B: '2' });
    profiles.pop();
    expect(profiles.map((p) => p.id)).toEqual(['fixture', 'codex', 'pi']);
    expect(await api.dispatch('acp:profiles:save', { id: 'x', name: 'reserved', command: 'x' })).toEqual({
      ok: false,
      error: { code: 'invalid_argument', message: 'profile name is reserved' },
    });
    expect(await api.dispatch('acp:profiles:save', { id: 'x', name: 'X', command: 'x', cwd: 'rel' })).toEqual(
      {
        ok: false,
        error: { code: 'invalid_argument', message: 'cwd: cwd must be an absolute path' },
      },
    );
    expect(await api.dispatch('acp:profiles:remove', { id: 'codex' })).toEqual({
      ok: true,
      value: { removed: true },
    });
    expect(await api.dispatch('acp:profiles:remove', { id: 'codex' })).toEqual({
      ok: true,
      value: { removed: false },
    });
  });

  it('lists pending permission requests and answers them', async () => {
    const { gw, permissions } = fakeGateway();
    const api = createApiHandlers(gw, { app: APP });
    const listed = await api.dispatch('acp:permissions:list', {});
    expect(listed).toEqual({ ok: true, value: [permissions[0]] });
    expect(
      await api.dispatch('acp:permissions:respond', { requestId: 'perm-1', optionId: 'always' }),
    ).toEqual({
      ok: false,
      error: { code: 'invalid_argument', message: 'Unknown permission option: always' },
    });
    expect(await api.dispatch('acp:permissions:respond', { requestId: 'perm-1' })).toEqual({
      ok: true,
      value: { resolved: true },
    });
    expect(gw.acp.permissions.respond).toHaveBeenLastCalledWith('perm-1', undefined);
    expect(
      await api.dispatch('acp:permissions:respond', { requestId: 'perm-1', optionId: 'allow-once' }),
    ).toEqual({ ok: false, error: { code: 'not_found', message: 'Unknown permission request: perm-1' } });
    expect(await api.dispatch('acp:permissions:list', {})).toEqual({ ok: true, value: [] });
  });

  it('reports the database with its backups (no file paths) and restores only through the app’s host', async () => {
    const { gw } = fakeGateway();
    const backup = {
      name: 'sightline-2026-12-02T12-00-00-000Z.db',
      takenAt: Date.UTC(2026, 11, 2, 12),
      bytes: 4096,
    };
    const script = createApiHandlers(gw, { app: APP });
    expect(await script.dispatch('database:status', {})).toEqual({
      ok: true,
      value: { path: '/tmp/x/sightline.db', backups: [backup], canRestore: false },
    });
    expect(await script.dispatch('database:restore', { name: backup.name })).toEqual({
      ok: false,
      error: { code: 'unavailable', message: 'Restoring a backup needs the app (Electron or npm run web)' },
    });
    const notice = {
      kind: 'damaged' as const,
      at: 5,
      path: '/tmp/x/sightline.db',
      damage: ['file is not a database'],
    };
    const restore = vi.fn(async () => {});
    const app = createApiHandlers(gw, { app: APP, database: { notice: () => notice, restore } });
    expect(await app.dispatch('database:status', {})).toEqual({
      ok: true,
      value: { path: '/tmp/x/sightline.db', backups: [backup], canRestore: true, notice },
    });
    expect(await app.dispatch('database:restore', { name: backup.name })).toEqual({
      ok: true,
      value: { restoring: true },
    });
    expect(restore).toHaveBeenCalledWith(backup.name);
    for (const name of [
      '../sightline.db',
      'sightline-x/../../etc.db',
      'other.db',
      '',
      'sightline-1.db.partial',
    ]) {
      const r = await app.dispatch('database:restore', { name });
      expect([name, r.ok]).toEqual([name, false]);
    }
    expect(restore).toHaveBeenCalledTimes(1);
  });

  it('states the same retention as the gateway prunes with', () => {
    expect(RETENTION.signalLogDays * 86_400_000).toBe(RETENTION_MS);
    expect(RETENTION.cursorIdleDays * 86_400_000).toBe(RETENTION_MS);
    expect(RETENTION.signalLogRows).toBe(MAX_EVENT_ROWS);
    expect(RETENTION.pruneEveryMinutes * 60_000).toBe(PRUNE_INTERVAL_MS);
  });
});

describe('push bridge', () => {
  it('sends what one turn of the event loop emitted together, at its end, with no timer', async () => {
    const { gw, emit, listeners } = fakeGateway();
    const batches: string[][] = [];
    const bridge = createPushBridge(gw.events, (b) => batches.push(b.events.map((e) => e.type)));
    const turnEnd = () => new Promise((resolve) => setImmediate(resolve));
    emit({ type: 'catalog:changed' });
    emit({ type: 'session:changed', sessionKey: 'a' });
    expect(batches).toEqual([]);
    await turnEnd();
    expect(batches).toEqual([['catalog:changed', 'session:changed']]);
    // The next turn's events: the next batch, as soon as that turn ends.
    emit({ type: 'session:deleted', sessionKey: 'a' });
    emit({ type: 'session:changed', sessionKey: 'b' });
    await turnEnd();
    expect(batches).toEqual([
      ['catalog:changed', 'session:changed'],
      ['session:deleted', 'session:changed'],
    ]);
    bridge.close();
    expect(listeners.size).toBe(0);
    emit({ type: 'catalog:changed' });
    await turnEnd();
    expect(batches).toHaveLength(2);
  });
});
