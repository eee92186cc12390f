import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type AcpProfileView,
  CHANNEL_LIST,
  CHANNELS,
  isChannel,
  type AgentView,
  type AppInfo,
  type ArgsOf,
  type CatalogEntry,
  type CatalogRootView,
  type Channel,
  type ConsentRequestView,
  type DatabaseNotice,
  type DatabaseStatus,
  type DemoFleet,
  type Envelope,
  type EventKind,
  type ActorType,
  type FleetSnapshot,
  type FleetWire,
  type FolderCheck,
  type Goal,
  type GoalStatus,
  type InboxItem,
  type PermissionRequestView,
  type PushBatch,
  type ResultOf,
  type NoticeHistory,
  type AcpInstallInfo,
  type RegistryInstallPlan,
  type RegistryListingView,
  type Preferences,
  type RunInfo,
  type SearchResult,
  type SessionImpact,
  type SessionView,
  type SightlineApi,
  type TimelinePage,
  type TranscriptPage,
  type WatchersView,
} from '../../shared/ipc';
import type { AgentNeeds } from '../../shared/ipc/agents';
import { parseArgs } from '../../shared/ipc/schemas';

type Empty = Record<string, never>;

describe('IPC contract types', () => {
  it('pins every channel name', () => {
    expect([...CHANNEL_LIST].sort()).toEqual([
      'accounts:invite',
      'accounts:list',
      'accounts:me',
      'accounts:revoke',
      'acp:auth:authenticate',
      'acp:auth:get',
      'acp:auth:key',
      'acp:installs:list',
      'acp:login:close',
      'acp:login:get',
      'acp:login:input',
      'acp:login:resize',
      'acp:login:start',
      'acp:permissions:list',
      'acp:permissions:respond',
      'acp:profiles:list',
      'acp:profiles:remove',
      'acp:profiles:save',
      'acp:registry:install',
      'acp:registry:list',
      'acp:registry:plan',
      'agents:list',
      'agents:save',
      'app:info',
      'audit:list',
      'catalog:adopt',
      'catalog:list',
      'catalog:roots',
      'consent:list',
      'consent:respond',
      'database:restore',
      'database:status',
      'demo:reset',
      'demo:start',
      'fleet:compact',
      'fleet:snapshot',
      'folders:check',
      'folders:pick',
      'goals:clear',
      'goals:set',
      'human:send',
      'inbox:dismiss',
      'inbox:history',
      'inbox:list',
      'mcp:issue',
      'mcp:list',
      'mcp:revoke',
      'nodes:add',
      'nodes:list',
      'nodes:remove',
      'nodes:rename',
      'prefs:get',
      'prefs:set',
      'runs:cancel',
      'runs:list',
      'runs:retry',
      'search:query',
      'sessions:archive',
      'sessions:changes',
      'sessions:delete',
      'sessions:get',
      'sessions:impact',
      'sessions:reset',
      'sessions:seen',
      'sessions:start',
      'timeline:page',
      'transcript:page',
      'ui:viewing',
      'watchers:get',
      'worktrees:changes',
      'worktrees:diff',
      'worktrees:discard',
      'worktrees:file',
      'worktrees:impact',
      'worktrees:keep',
      'worktrees:merge',
      'worktrees:overlaps',
      'worktrees:probe',
      'worktrees:rebase',
      'worktrees:review',
    ]);
    for (const c of CHANNEL_LIST) expect(c).toMatch(/^[a-z]+(:[a-z]+)?:[a-z]+$/);
    expect(isChannel(CHANNELS.fleetSnapshot)).toBe(true);
    expect(isChannel('fleet:nope')).toBe(false);
  });

  it('pins argument types', () => {
    expectTypeOf<ArgsOf<'fleet:snapshot'>>().toEqualTypeOf<Empty>();
    expectTypeOf<ArgsOf<'fleet:compact'>>().toEqualTypeOf<Empty>();
    expectTypeOf<ArgsOf<'sessions:get'>>().toEqualTypeOf<{ sessionKey: string }>();
    expectTypeOf<ArgsOf<'transcript:page'>>().toEqualTypeOf<{
      sessionKey: string;
      beforeId?: number | undefined;
      limit?: number | undefined;
    }>();
    expectTypeOf<ArgsOf<'human:send'>>().toEqualTypeOf<{ sessionKey: string; text: string }>();
    expectTypeOf<ArgsOf<'runs:cancel'>>().toEqualTypeOf<{ sessionKey: string }>();
    expectTypeOf<ArgsOf<'goals:set'>>().toEqualTypeOf<{
      sessionKey: string;
      objective?: string | undefined;
      status?: GoalStatus | undefined;
    }>();
    expectTypeOf<ArgsOf<'goals:clear'>>().toEqualTypeOf<{ sessionKey: string }>();
    expectTypeOf<ArgsOf<'timeline:page'>>().toEqualTypeOf<{
      sessionKey: string;
      agentId?: string | undefined;
      beforeSequence?: number | undefined;
      limit?: number | undefined;
      kinds?: EventKind[] | undefined;
      actorTypes?: ActorType[] | undefined;
    }>();
    expectTypeOf<ArgsOf<'watchers:get'>>().toEqualTypeOf<{ sessionKey: string }>();
    expectTypeOf<ArgsOf<'inbox:list'>>().toEqualTypeOf<Empty>();
    expectTypeOf<ArgsOf<'inbox:dismiss'>>().toEqualTypeOf<{ id: string }>();
    expectTypeOf<ArgsOf<'catalog:list'>>().toEqualTypeOf<Empty>();
    expectTypeOf<ArgsOf<'catalog:adopt'>>().toEqualTypeOf<{
      provider: 'claude' | 'codex' | 'opencode' | 'pi';
      threadId: string;
      hostId?: string | undefined;
    }>();
    expectTypeOf<ArgsOf<'demo:start'>>().toEqualTypeOf<Empty>();
    expectTypeOf<ArgsOf<'agents:list'>>().toEqualTypeOf<Empty>();
    expectTypeOf<ArgsOf<'agents:save'>>().toEqualTypeOf<{
      id: string;
      name?: string | undefined;
      provider?: 'scripted' | 'openai' | 'anthropic' | undefined;
      model?: string | undefined;
      baseUrl?: string | undefined;
      apiKey?: string | undefined;
      clearApiKey?: boolean | undefined;
      systemPrompt?: string | undefined;
      heartbeatSeconds?: number | undefined;
    }>();
    expectTypeOf<ArgsOf<'app:info'>>().toEqualTypeOf<Empty>();
    expectTypeOf<ArgsOf<'acp:profiles:list'>>().toEqualTypeOf<Empty>();
    expectTypeOf<ArgsOf<'acp:profiles:save'>>().toEqualTypeOf<{
      id: string;
      name: string;
      command: string;
      args?: string[] | undefined;
      env?: Record<string, string> | undefined;
      keepEnv?: string[] | undefined;
      cwd?: string | undefined;
      allowAgents?: boolean | undefined;
      askTerminal?: boolean | undefined;
      reach?: 'tree' | 'agent' | 'all' | undefined;
    }>();
    expectTypeOf<ArgsOf<'acp:profiles:remove'>>().toEqualTypeOf<{ id: string }>();
    expectTypeOf<ArgsOf<'acp:permissions:list'>>().toEqualTypeOf<Empty>();
    expectTypeOf<ArgsOf<'search:query'>>().toEqualTypeOf<{ query: string; limit?: number | undefined }>();
    expectTypeOf<ArgsOf<'prefs:get'>>().toEqualTypeOf<Empty>();
    expectTypeOf<ArgsOf<'catalog:roots'>>().toEqualTypeOf<Empty>();
    expectTypeOf<ArgsOf<'demo:reset'>>().toEqualTypeOf<Empty>();
    expectTypeOf<ArgsOf<'ui:viewing'>>().toEqualTypeOf<{ sessionKey?: string | undefined }>();
    expectTypeOf<ArgsOf<'sessions:seen'>>().toEqualTypeOf<{ sessionKey: string }>();
    expectTypeOf<ArgsOf<'runs:retry'>>().toEqualTypeOf<{ sessionKey: string }>();
    expectTypeOf<ArgsOf<'inbox:history'>>().toEqualTypeOf<{
      beforeId?: number | undefined;
      limit?: number | undefined;
    }>();
    expectTypeOf<ArgsOf<'acp:permissions:respond'>>().toEqualTypeOf<{
      requestId: string;
      optionId?: string | undefined;
    }>();
    expectTypeOf<ArgsOf<'consent:list'>>().toEqualTypeOf<Empty>();
    expectTypeOf<ArgsOf<'consent:respond'>>().toEqualTypeOf<{ requestId: string; allow: boolean }>();
    expectTypeOf<ArgsOf<'database:status'>>().toEqualTypeOf<Empty>();
    expectTypeOf<ArgsOf<'database:restore'>>().toEqualTypeOf<{ name: string }>();
  });

  it('pins result types', () => {
    expectTypeOf<ResultOf<'fleet:snapshot'>>().toEqualTypeOf<FleetSnapshot>();
    expectTypeOf<ResultOf<'fleet:compact'>>().toEqualTypeOf<FleetWire>();
    expectTypeOf<ResultOf<'sessions:get'>>().toEqualTypeOf<SessionView>();
    expectTypeOf<ResultOf<'transcript:page'>>().toEqualTypeOf<TranscriptPage>();
    expectTypeOf<ResultOf<'human:send'>>().toEqualTypeOf<{ accepted: true }>();
    expectTypeOf<ResultOf<'runs:cancel'>>().toEqualTypeOf<{ cancelled: boolean }>();
    expectTypeOf<ResultOf<'goals:set'>>().toEqualTypeOf<Goal>();
    expectTypeOf<ResultOf<'goals:clear'>>().toEqualTypeOf<{ cleared: true }>();
    expectTypeOf<ResultOf<'timeline:page'>>().toEqualTypeOf<TimelinePage>();
    expectTypeOf<ResultOf<'watchers:get'>>().toEqualTypeOf<WatchersView>();
    expectTypeOf<ResultOf<'inbox:list'>>().toEqualTypeOf<InboxItem[]>();
    expectTypeOf<ResultOf<'inbox:dismiss'>>().toEqualTypeOf<{ dismissed: true }>();
    expectTypeOf<ResultOf<'catalog:list'>>().toEqualTypeOf<CatalogEntry[]>();
    expectTypeOf<ResultOf<'catalog:adopt'>>().toEqualTypeOf<SessionView>();
    expectTypeOf<ResultOf<'demo:start'>>().toEqualTypeOf<DemoFleet>();
    expectTypeOf<ResultOf<'demo:reset'>>().toEqualTypeOf<DemoFleet>();
    expectTypeOf<ResultOf<'ui:viewing'>>().toEqualTypeOf<{ viewing: true }>();
    expectTypeOf<ResultOf<'sessions:seen'>>().toEqualTypeOf<{ seen: true }>();
    expectTypeOf<ResultOf<'runs:retry'>>().toEqualTypeOf<{ retried: boolean }>();
    expectTypeOf<ResultOf<'inbox:history'>>().toEqualTypeOf<NoticeHistory>();
    expectTypeOf<ResultOf<'search:query'>>().toEqualTypeOf<SearchResult>();
    expectTypeOf<ResultOf<'prefs:get'>>().toEqualTypeOf<Preferences>();
    expectTypeOf<ResultOf<'catalog:roots'>>().toEqualTypeOf<CatalogRootView[]>();
    expectTypeOf<ResultOf<'prefs:set'>>().toEqualTypeOf<Preferences>();
    expectTypeOf<ResultOf<'agents:list'>>().toEqualTypeOf<AgentView[]>();
    expectTypeOf<ResultOf<'agents:save'>>().toEqualTypeOf<AgentView>();
    expectTypeOf<ResultOf<'app:info'>>().toEqualTypeOf<AppInfo>();
    expectTypeOf<ResultOf<'acp:profiles:list'>>().toEqualTypeOf<AcpProfileView[]>();
    expectTypeOf<ResultOf<'acp:profiles:save'>>().toEqualTypeOf<AcpProfileView>();
    expectTypeOf<ResultOf<'acp:profiles:remove'>>().toEqualTypeOf<{ removed: boolean }>();
    expectTypeOf<ResultOf<'acp:permissions:list'>>().toEqualTypeOf<PermissionRequestView[]>();
    expectTypeOf<ResultOf<'acp:permissions:respond'>>().toEqualTypeOf<{ resolved: true }>();
    expectTypeOf<ResultOf<'consent:list'>>().toEqualTypeOf<ConsentRequestView[]>();
    expectTypeOf<ResultOf<'consent:respond'>>().toEqualTypeOf<{ resolved: true }>();
    expectTypeOf<ResultOf<'database:status'>>().toEqualTypeOf<DatabaseStatus>();
    expectTypeOf<ResultOf<'database:restore'>>().toEqualTypeOf<{ restoring: true }>();
    expectTypeOf<DatabaseStatus>().toEqualTypeOf<{
      path: string;
      backups: { name: string; takenAt: number; bytes: number }[];
      canRestore: boolean;
      notice?: DatabaseNotice;
    }>();
    expectTypeOf<DatabaseNotice['kind']>().toEqualTypeOf<'damaged' | 'restored' | 'restore_failed'>();
    expectTypeOf<AcpProfileView>().toEqualTypeOf<{
      id: string;
      name: string;
      command: string;
      args: string[];
      env: Record<string, string>;
      cwd?: string;
      allowAgents: boolean;
      askTerminal: boolean;
      reach: 'tree' | 'agent' | 'all';
      needs?: AgentNeeds;
    }>();
    expectTypeOf<SessionView['tokens']>().toEqualTypeOf<{ input: number; output: number }>();
    expectTypeOf<AgentView>().not.toHaveProperty('apiKey');
    expectTypeOf<AgentView['hasApiKey']>().toEqualTypeOf<boolean>();
  });

  it('pins the window.sightline API and the envelope', () => {
    expectTypeOf<SightlineApi['invoke']>().toBeFunction();
    expectTypeOf<ReturnType<SightlineApi['subscribe']>>().toEqualTypeOf<() => void>();
    expectTypeOf<Parameters<SightlineApi['subscribe']>[0]>().toEqualTypeOf<(batch: PushBatch) => void>();
    type R = Awaited<ReturnType<typeof _invokeSnapshot>>;
    expectTypeOf<R>().toEqualTypeOf<Envelope<FleetSnapshot>>();
    expectTypeOf<Extract<Envelope<number>, { ok: false }>['error']['code']>().toEqualTypeOf<
      'invalid_argument' | 'not_found' | 'forbidden' | 'unavailable' | 'unknown_channel' | 'internal'
    >();
    expectTypeOf<Channel>().toEqualTypeOf<(typeof CHANNEL_LIST)[number]>();
  });
});

declare const api: SightlineApi;
const _invokeSnapshot = () => api.invoke('fleet:snapshot', {});

const bad = (channel: Channel, raw: unknown) => {
  const r = parseArgs(channel, raw);
  return r.ok ? 'accepted' : r.message;
};

describe('IPC argument schemas', () => {
  it('takes only backup names for database:restore, never a path', () => {
    expect(parseArgs('database:restore', { name: 'sightline-2026-12-02T12-00-00-000Z.db' })).toEqual({
      ok: true,
      value: { name: 'sightline-2026-12-02T12-00-00-000Z.db' },
    });
    const refusal = 'name: name must be a backup name (sightline-<time>.db)';
    expect(bad('database:restore', { name: '/etc/passwd' })).toBe(refusal);
    expect(bad('database:restore', { name: '../sightline.db' })).toBe(refusal);
    expect(bad('database:restore', { name: 'sightline-1/../../x.db' })).toBe(refusal);
    expect(bad('database:restore', { name: `sightline-${'1'.repeat(80)}.db` })).toBe(
      'name: name must be at most 64 characters',
    );
    expect(bad('database:restore', { name: 'sightline-1.db', extra: 1 })).toMatch(/^Unrecognized key/);
  });

  it('accepts valid arguments and applies defaults and clamps', () => {
    expect(parseArgs('fleet:snapshot', undefined)).toEqual({ ok: true, value: {} });
    expect(parseArgs('transcript:page', { sessionKey: 'agent:main:main' })).toEqual({
      ok: true,
      value: { sessionKey: 'agent:main:main', limit: 100 },
    });
    expect(parseArgs('transcript:page', { sessionKey: 'k', limit: 10_000, beforeId: 7 })).toEqual({
      ok: true,
      value: { sessionKey: 'k', limit: 500, beforeId: 7 },
    });
    expect(parseArgs('timeline:page', { sessionKey: 'k', limit: -3 })).toEqual({
      ok: true,
      value: { sessionKey: 'k', limit: 1 },
    });
    expect(
      parseArgs('timeline:page', { sessionKey: 'k', kinds: ['run_failed'], actorTypes: ['human'] }),
    ).toEqual({
      ok: true,
      value: { sessionKey: 'k', limit: 200, kinds: ['run_failed'], actorTypes: ['human'] },
    });
    expect(parseArgs('human:send', { sessionKey: 'k', text: 'x'.repeat(100_000) }).ok).toBe(true);
    expect(parseArgs('goals:set', { sessionKey: 'k', status: 'paused' })).toEqual({
      ok: true,
      value: { sessionKey: 'k', status: 'paused' },
    });
    expect(
      parseArgs('agents:save', { id: 'Main', apiKey: 'sk-1', heartbeatSeconds: 0, baseUrl: '' }).ok,
    ).toBe(true);
    expect(parseArgs('catalog:adopt', { provider: 'codex', threadId: 't-1' }).ok).toBe(true);
    expect(parseArgs('acp:profiles:save', { id: 'fixture', name: 'Fixture', command: 'node' })).toEqual({
      ok: true,
      value: { id: 'fixture', name: 'Fixture', command: 'node', args: [], env: {} },
    });
    expect(
      parseArgs('acp:profiles:save', {
        id: 'codex-acp',
        name: 'Codex',
        command: '/usr/bin/codex-acp',
        args: ['--model', 'x y', ''],
        env: { RUST_LOG: 'info', _X1: '' },
        cwd: '/home/me/project',
      }),
    ).toEqual({
      ok: true,
      value: {
        id: 'codex-acp',
        name: 'Codex',
        command: '/usr/bin/codex-acp',
        args: ['--model', 'x y', ''],
        env: { RUST_LOG: 'info', _X1: '' },
        cwd: '/home/me/project',
      },
    });
    for (const cwd of ['', 'C:\\work', 'd:/work', '\\\\server\\share']) {
      expect(parseArgs('acp:profiles:save', { id: 'a', name: 'A', command: 'a', cwd }).ok).toBe(true);
    }
    expect(parseArgs('acp:profiles:remove', { id: 'fixture' })).toEqual({
      ok: true,
      value: { id: 'fixture' },
    });
    expect(parseArgs('acp:permissions:list', undefined)).toEqual({ ok: true, value: {} });
    expect(parseArgs('acp:permissions:respond', { requestId: 'r-1' })).toEqual({
      ok: true,
      value: { requestId: 'r-1' },
    });
    expect(parseArgs('acp:permissions:respond', { requestId: 'r-1', optionId: 'allow-once' })).toEqual({
      ok: true,
      value: { requestId: 'r-1', optionId: 'allow-once' },
    });
    expect(
      parseArgs('acp:profiles:save', {
        id: 'a',
        name: 'A',
        command: 'a',
        keepEnv: ['TOKEN'],
        allowAgents: true,
        askTerminal: false,
      }),
    ).toEqual({
      ok: true,
      value: {
        id: 'a',
        name: 'A',
        command: 'a',
        args: [],
        env: {},
        keepEnv: ['TOKEN'],
        allowAgents: true,
        askTerminal: false,
      },
    });
    expect(parseArgs('consent:respond', { requestId: 'consent-1', allow: false })).toEqual({
      ok: true,
      value: { requestId: 'consent-1', allow: false },
    });
  });

  it('refuses invalid arguments with exact messages', () => {
    expect(bad('sessions:get', {})).toBe('sessionKey: sessionKey must be a string');
    expect(bad('sessions:get', { sessionKey: '' })).toBe('sessionKey: sessionKey must not be empty');
    expect(bad('sessions:get', { sessionKey: 'k'.repeat(513) })).toBe(
      'sessionKey: sessionKey must be at most 512 characters',
    );
    expect(bad('sessions:get', { sessionKey: 'k', extra: 1 })).toBe('Unrecognized key: "extra"');
    expect(bad('sessions:get', null)).toBe('Invalid input: expected object, received null');
    expect(bad('human:send', { sessionKey: 'k', text: 'x'.repeat(100_001) })).toBe(
      'text: text must be at most 100000 characters',
    );
    expect(bad('human:send', { sessionKey: 'k', text: '   ' })).toBe('text: text must not be empty');
    expect(bad('transcript:page', { sessionKey: 'k', limit: 1.5 })).toBe('limit: limit must be an integer');
    expect(bad('transcript:page', { sessionKey: 'k', beforeId: -1 })).toBe(
      'beforeId: beforeId must be a non-negative integer',
    );
    expect(bad('timeline:page', { sessionKey: 'k', kinds: ['nope'] })).toBe('kinds.0: unknown event kind');
    expect(bad('timeline:page', { sessionKey: 'k', actorTypes: ['robot'] })).toBe(
      'actorTypes.0: unknown actor type',
    );
    expect(bad('goals:set', { sessionKey: 'k' })).toBe('goal needs an objective or a status');
    expect(bad('goals:set', { sessionKey: 'k', status: 'finished' })).toBe(
      'status: status must be one of active, paused, blocked, done',
    );
    expect(bad('catalog:adopt', { provider: 'cursor', threadId: 't' })).toBe(
      'provider: provider must be one of claude, codex, opencode, pi',
    );
    expect(bad('nodes:add', {})).toBe('ssh: ssh must be a string');
    expect(bad('nodes:add', { ssh: '-oProxyCommand=x' })).toBe(
      'ssh: ssh must be an SSH destination (user@host or a Host from ~/.ssh/config)',
    );
    expect(bad('nodes:add', { ssh: 'devbox', command: ['node'] })).toBe('Unrecognized key: "command"');
    expect(bad('nodes:add', { ssh: 'devbox', nodeCommand: 'node serve.js' })).toBe(
      'nodeCommand: nodeCommand must be a list of arguments',
    );
    expect(bad('nodes:add', { ssh: 'devbox', nodeCommand: [] })).toBe(
      'nodeCommand: nodeCommand must not be empty',
    );
    expect(bad('nodes:add', { ssh: 'devbox', shell: true })).toBe('Unrecognized key: "shell"');
    expect(bad('nodes:rename', { id: 'n1', name: '  ' })).toBe('name: name must not be empty');
    expect(bad('catalog:adopt', { provider: 'pi', threadId: 't', hostId: 7 })).toBe(
      'hostId: id must be a string',
    );
    expect(bad('agents:save', { id: '-x' })).toBe('id: id must match [a-z0-9][a-z0-9_-]{0,63}');
    expect(bad('agents:save', { id: 'main', baseUrl: 'file:///etc' })).toBe(
      'baseUrl: baseUrl must be an http(s) URL',
    );
    expect(bad('agents:save', { id: 'main', heartbeatSeconds: 86_401 })).toBe(
      'heartbeatSeconds: heartbeatSeconds must be between 0 and 86400',
    );
    expect(bad('inbox:dismiss', { id: '' })).toBe('id: id must not be empty');
    expect(bad('fleet:snapshot', { x: 1 })).toBe('Unrecognized key: "x"');
    const profile = { id: 'fx', name: 'Fixture', command: 'node' };
    expect(bad('acp:profiles:save', { ...profile, id: 'Fx' })).toBe(
      'id: id must match [a-z0-9][a-z0-9_-]{0,63} (lower case)',
    );
    expect(bad('acp:profiles:save', { ...profile, name: '  ' })).toBe('name: name must not be empty');
    expect(bad('acp:profiles:save', { ...profile, command: '' })).toBe('command: command must not be empty');
    expect(bad('acp:profiles:save', { id: 'fx', name: 'Fixture' })).toBe('command: command must be a string');
    expect(bad('acp:profiles:save', { ...profile, args: 'a b' })).toBe(
      'args: args must be a list of strings',
    );
    expect(bad('acp:profiles:save', { ...profile, args: ['a', 1] })).toBe(
      'args.1: each argument must be a string',
    );
    expect(bad('acp:profiles:save', { ...profile, args: Array(201).fill('a') })).toBe(
      'args: args must have at most 200 entries',
    );
    expect(bad('acp:profiles:save', { ...profile, env: { 'BAD-NAME': 'x' } })).toBe(
      'env.BAD-NAME: env names must match [A-Za-z_][A-Za-z0-9_]*',
    );
    expect(bad('acp:profiles:save', { ...profile, env: { A: 1 } })).toBe('env.A: env value must be a string');
    expect(bad('acp:profiles:save', { ...profile, env: ['A=1'] })).toBe('env: env must map names to strings');
    expect(bad('acp:profiles:save', { ...profile, cwd: 'relative/dir' })).toBe(
      'cwd: cwd must be an absolute path',
    );
    expect(bad('acp:profiles:remove', {})).toBe('id: id must be a string');
    expect(bad('acp:permissions:respond', {})).toBe('requestId: requestId must be a string');
    expect(bad('acp:permissions:respond', { requestId: 'r', optionId: '' })).toBe(
      'optionId: optionId must not be empty',
    );
    expect(bad('search:query', { query: '  ' })).toBe('query: query must not be empty');
    expect(bad('search:query', { query: 'q'.repeat(201) })).toBe(
      'query: query must be at most 200 characters',
    );
    expect(parseArgs('search:query', { query: 'release', limit: 9_999 })).toEqual({
      ok: true,
      value: { query: 'release', limit: 500 },
    });
    expect(bad('prefs:set', { theme: 'blue' })).toBe('theme: theme must be one of system, light, dark');
    expect(bad('prefs:set', { notifications: { longRunSeconds: 5 } })).toBe(
      'notifications.longRunSeconds: longRunSeconds must be between 10 and 86400',
    );
    expect(bad('prefs:set', { notifications: { sound: true } })).toBe(
      'notifications: Unrecognized key: "sound"',
    );
    expect(bad('acp:permissions:respond', { requestId: 'r', decision: 'allow' })).toBe(
      'Unrecognized key: "decision"',
    );
  });
});

describe('IPC contract: starting sessions and their lifecycle', () => {
  it('pins argument and result types', () => {
    expectTypeOf<ArgsOf<'sessions:start'>>().toEqualTypeOf<{
      agentId?: string | undefined;
      acpProfileId?: string | undefined;
      cwd?: string | undefined;
      label?: string | undefined;
      message: string;
      parentKey?: string | undefined;
      isolation?: 'worktree' | 'none' | undefined;
      base?: string | undefined;
      worktreesFolder?: string | undefined;
      node?: string | undefined;
    }>();
    expectTypeOf<ArgsOf<'sessions:impact'>>().toEqualTypeOf<{ sessionKey: string }>();
    expectTypeOf<ArgsOf<'sessions:changes'>>().toEqualTypeOf<{ sessionKey: string }>();
    expectTypeOf<ResultOf<'sessions:changes'>>().toEqualTypeOf<{ files: string[] }>();
    expectTypeOf<ArgsOf<'sessions:reset'>>().toEqualTypeOf<{ sessionKey: string }>();
    expectTypeOf<ArgsOf<'sessions:delete'>>().toEqualTypeOf<{ sessionKey: string }>();
    expectTypeOf<ArgsOf<'sessions:archive'>>().toEqualTypeOf<{ sessionKey: string; archived: boolean }>();
    expectTypeOf<ArgsOf<'runs:list'>>().toEqualTypeOf<{ sessionKey: string }>();
    expectTypeOf<ArgsOf<'folders:check'>>().toEqualTypeOf<{ path: string; node?: string | undefined }>();
    expectTypeOf<ArgsOf<'folders:pick'>>().toEqualTypeOf<Empty>();
    expectTypeOf<ResultOf<'sessions:start'>>().toEqualTypeOf<SessionView>();
    expectTypeOf<ResultOf<'sessions:impact'>>().toEqualTypeOf<SessionImpact>();
    expectTypeOf<ResultOf<'sessions:reset'>>().toEqualTypeOf<SessionView>();
    expectTypeOf<ResultOf<'sessions:delete'>>().toEqualTypeOf<{ deleted: true }>();
    expectTypeOf<ResultOf<'sessions:archive'>>().toEqualTypeOf<SessionView>();
    expectTypeOf<ResultOf<'runs:list'>>().toEqualTypeOf<RunInfo[]>();
    expectTypeOf<ResultOf<'folders:check'>>().toEqualTypeOf<FolderCheck>();
    expectTypeOf<ResultOf<'folders:pick'>>().toEqualTypeOf<{ path?: string }>();
    expectTypeOf<SessionView['cwd']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<SessionView['archived']>().toEqualTypeOf<boolean | undefined>();
  });

  it('pins the registry channels', () => {
    type Dist = 'binary' | 'npx' | 'uvx';
    expectTypeOf<ArgsOf<'acp:registry:list'>>().toEqualTypeOf<{ refresh?: boolean | undefined }>();
    expectTypeOf<ArgsOf<'acp:registry:plan'>>().toEqualTypeOf<{
      agentId: string;
      distribution?: Dist | undefined;
    }>();
    expectTypeOf<ArgsOf<'acp:registry:install'>>().toEqualTypeOf<{
      agentId: string;
      distribution?: Dist | undefined;
      env?: Record<string, string> | undefined;
    }>();
    expectTypeOf<ArgsOf<'acp:installs:list'>>().toEqualTypeOf<Empty>();
    expectTypeOf<ResultOf<'acp:registry:list'>>().toEqualTypeOf<RegistryListingView>();
    expectTypeOf<ResultOf<'acp:registry:plan'>>().toEqualTypeOf<RegistryInstallPlan>();
    expectTypeOf<ResultOf<'acp:registry:install'>>().toEqualTypeOf<AcpProfileView>();
    expectTypeOf<ResultOf<'acp:installs:list'>>().toEqualTypeOf<AcpInstallInfo[]>();
    expect(bad('acp:registry:plan', { agentId: 'Gemini' })).toBe(
      'agentId: agentId must be a registry agent id',
    );
    expect(bad('acp:registry:install', { agentId: 'gemini', distribution: 'apt' })).toBe(
      'distribution: distribution must be one of binary, npx, uvx',
    );
  });

  it('parses sessions:start strictly', () => {
    const ok = { agentId: 'main', message: 'Do it', cwd: '/tmp/x', label: 'L', parentKey: 'agent:main:main' };
    expect(parseArgs('sessions:start', ok)).toEqual({ ok: true, value: ok });
    expect(bad('sessions:start', { message: 'x' })).toBe('choose exactly one of agentId and acpProfileId');
    expect(bad('sessions:start', { agentId: 'main', acpProfileId: 'p', message: 'x' })).toBe(
      'choose exactly one of agentId and acpProfileId',
    );
    expect(bad('sessions:start', { agentId: 'main', message: '   ' })).toBe(
      'message: message must not be empty',
    );
    expect(bad('sessions:start', { acpProfileId: 'Bad Id', message: 'x' })).toBe(
      'acpProfileId: id must match [a-z0-9][a-z0-9_-]{0,63} (lower case)',
    );
    expect(bad('sessions:start', { agentId: 'main', message: 'x', cwd: 'rel/dir' })).toBe(
      'cwd: cwd must be an absolute path',
    );
    expect(bad('sessions:start', { agentId: 'main', message: 'x', label: 'l'.repeat(201) })).toBe(
      'label: label must be at most 200 characters',
    );
    expect(bad('sessions:start', { agentId: 'main', message: 'x', extra: 1 })).toMatch(/extra/);
    expect(bad('sessions:archive', { sessionKey: 'k' })).toBe('archived: archived must be a boolean');
    expect(bad('folders:check', { path: '' })).toBe('path: path must not be empty');
  });
});
