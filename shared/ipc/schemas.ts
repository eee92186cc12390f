// zod schemas for every channel's arguments: strict objects, bounded strings, clamped limits.
// The trust boundary (Electron's ipcMain wrapper, browser mode's WebSocket) parses with these.
// Over 300 lines on purpose: one table of every channel's schema, beside the shared building blocks.
import { SSH_DESTINATION, SSH_DESTINATION_HINT } from '../ssh';
import { z } from 'zod';
import { ACTOR_TYPES, EVENT_KINDS } from '../domain';
import { CATALOG_PROVIDERS, GOAL_STATUSES, PROVIDER_IDS, REGISTRY_DISTRIBUTIONS, THEMES } from './types';
import type { Channel } from './channels';
import { LIMITS } from './limits';
import { REACHES } from './reach';
import { ACCOUNT_SCHEMAS } from './account-schemas';
import { LOGIN_TERMINAL_SCHEMAS } from './login-terminal-schemas';
import { WORKTREE_SCHEMAS } from './worktree-schemas';

const clampLimit = (def: number, max: number) =>
  z
    .number({ error: 'limit must be a number' })
    .int({ error: 'limit must be an integer' })
    .optional()
    .transform((v) => Math.min(Math.max(v ?? def, 1), max));

const sessionKey = z
  .string({ error: 'sessionKey must be a string' })
  .min(1, { error: 'sessionKey must not be empty' })
  .max(LIMITS.sessionKey, { error: `sessionKey must be at most ${LIMITS.sessionKey} characters` });

const cursorId = (name: string) =>
  z
    .number({ error: `${name} must be a number` })
    .int({ error: `${name} must be a non-negative integer` })
    .nonnegative({ error: `${name} must be a non-negative integer` })
    .optional();

const boundedString = (name: string, max: number) =>
  z
    .string({ error: `${name} must be a string` })
    .max(max, { error: `${name} must be at most ${max} characters` });

const nonEmpty = (name: string, max: number) =>
  boundedString(name, max).refine((t) => t.trim().length > 0, { error: `${name} must not be empty` });

const reachSchema = z.enum(REACHES, { error: 'reach must be one of tree, agent, all' });
const profileId = boundedString('id', LIMITS.profileId).regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, {
  error: 'id must match [a-z0-9][a-z0-9_-]{0,63} (lower case)',
});

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** POSIX `/…`, Windows `C:\…` or `\\server\…`. */
const ABSOLUTE_PATH = /^(\/|[A-Za-z]:[\\/]|\\\\)/;

const flag = (name: string) => z.boolean({ error: `${name} must be a boolean` }).optional();

/** Preferences as stored and as set: every field optional (absent: unchanged / the default). */
const GRACE_RANGE = `agentGraceSeconds must be between ${LIMITS.agentGraceSeconds.min} and ${LIMITS.agentGraceSeconds.max} seconds`;
export const PREFERENCES_PATCH = z.strictObject({
  theme: z.enum(THEMES, { error: `theme must be one of ${THEMES.join(', ')}` }).optional(),
  notifications: z
    .strictObject({
      waiting: flag('waiting'),
      failed: flag('failed'),
      finished: flag('finished'),
      upstreamMissing: flag('upstreamMissing'),
      longRunSeconds: z
        .number({ error: 'longRunSeconds must be a number' })
        .int({ error: 'longRunSeconds must be an integer' })
        .min(LIMITS.longRunSeconds.min, {
          error: `longRunSeconds must be between ${LIMITS.longRunSeconds.min} and ${LIMITS.longRunSeconds.max}`,
        })
        .max(LIMITS.longRunSeconds.max, {
          error: `longRunSeconds must be between ${LIMITS.longRunSeconds.min} and ${LIMITS.longRunSeconds.max}`,
        })
        .optional(),
    })
    .optional(),
  inbox: z.strictObject({ doneUnseen: flag('doneUnseen') }).optional(),
  nodes: z
    .strictObject({
      agentGraceSeconds: z
        .number({ error: 'agentGraceSeconds must be a number' })
        .int({ error: 'agentGraceSeconds must be an integer' })
        .min(LIMITS.agentGraceSeconds.min, { error: GRACE_RANGE })
        .max(LIMITS.agentGraceSeconds.max, { error: GRACE_RANGE }),
    })
    .optional(),
});

const empty = z.strictObject({});
const nodeId = nonEmpty('id', LIMITS.nodeId);
/** A command line as a list of arguments (never a shell string). */
const commandLine = (name: string) =>
  z
    .array(boundedString(name, LIMITS.command), { error: `${name} must be a list of arguments` })
    .min(1, { error: `${name} must not be empty` })
    .max(LIMITS.nodeCommandArgs, { error: `${name} must have at most ${LIMITS.nodeCommandArgs} arguments` });

/** A profile's environment: names as the shell takes them, values bounded. */
const profileEnv = z
  .record(
    boundedString('env name', LIMITS.envName).regex(ENV_NAME, {
      error: 'env names must match [A-Za-z_][A-Za-z0-9_]*',
    }),
    boundedString('env value', LIMITS.envValue),
    {
      error: (iss) =>
        iss.code === 'invalid_key'
          ? 'env names must match [A-Za-z_][A-Za-z0-9_]*'
          : 'env must map names to strings',
    },
  )
  .refine((e) => Object.keys(e).length <= LIMITS.profileEnv, {
    error: `env must have at most ${LIMITS.profileEnv} entries`,
  });
const registryAgent = {
  agentId: boundedString('agentId', LIMITS.profileId).regex(/^[a-z][a-z0-9-]*$/, {
    error: 'agentId must be a registry agent id',
  }),
  distribution: z
    .enum(REGISTRY_DISTRIBUTIONS, {
      error: `distribution must be one of ${REGISTRY_DISTRIBUTIONS.join(', ')}`,
    })
    .optional(),
};
const registryPlan = z.strictObject(registryAgent);
const sessionOnly = z.strictObject({ sessionKey });

export const SCHEMAS = {
  'fleet:snapshot': empty,
  'fleet:compact': empty,
  'sessions:get': sessionOnly,
  'sessions:seen': sessionOnly,
  'transcript:page': z.strictObject({
    sessionKey,
    beforeId: cursorId('beforeId'),
    limit: clampLimit(LIMITS.transcriptPage.default, LIMITS.transcriptPage.max),
  }),
  'human:send': z.strictObject({
    sessionKey,
    text: boundedString('text', LIMITS.messageText).refine((t) => t.trim().length > 0, {
      error: 'text must not be empty',
    }),
  }),
  'runs:cancel': sessionOnly,
  'runs:retry': sessionOnly,
  'goals:set': z
    .strictObject({
      sessionKey,
      objective: boundedString('objective', LIMITS.objective).optional(),
      status: z
        .enum(GOAL_STATUSES, { error: `status must be one of ${GOAL_STATUSES.join(', ')}` })
        .optional(),
    })
    .refine((g) => g.objective !== undefined || g.status !== undefined, {
      error: 'goal needs an objective or a status',
    }),
  'goals:clear': sessionOnly,
  'timeline:page': z.strictObject({
    sessionKey,
    agentId: boundedString('agentId', LIMITS.agentId).optional(),
    beforeSequence: cursorId('beforeSequence'),
    limit: clampLimit(LIMITS.timelinePage.default, LIMITS.timelinePage.max),
    kinds: z
      .array(z.enum(EVENT_KINDS, { error: 'unknown event kind' }))
      .max(EVENT_KINDS.length)
      .optional(),
    actorTypes: z
      .array(z.enum(ACTOR_TYPES, { error: 'unknown actor type' }))
      .max(ACTOR_TYPES.length)
      .optional(),
  }),
  'watchers:get': sessionOnly,
  'inbox:list': empty,
  'inbox:dismiss': z.strictObject({
    id: boundedString('id', LIMITS.inboxId).min(1, { error: 'id must not be empty' }),
  }),
  'inbox:history': z.strictObject({
    beforeId: cursorId('beforeId'),
    limit: clampLimit(LIMITS.historyPage.default, LIMITS.historyPage.max),
  }),
  'catalog:list': empty,
  'catalog:adopt': z.strictObject({
    provider: z.enum(CATALOG_PROVIDERS, { error: `provider must be one of ${CATALOG_PROVIDERS.join(', ')}` }),
    threadId: boundedString('threadId', LIMITS.threadId).min(1, { error: 'threadId must not be empty' }),
    /** A paired node's id (NodeInfo.id); absent: this machine. */
    hostId: nodeId.optional(),
  }),
  'catalog:roots': empty,
  'nodes:list': empty,
  /** The app adds machines by SSH destination (a local node command is for the in-process API). */
  'nodes:add': z.strictObject({
    ssh: boundedString('ssh', LIMITS.sshDestination).regex(SSH_DESTINATION, {
      error: `ssh must be an SSH destination (${SSH_DESTINATION_HINT})`,
    }),
    nodeCommand: commandLine('nodeCommand').optional(),
    name: boundedString('name', LIMITS.nodeName).optional(),
    allowContinue: flag('allowContinue'),
  }),
  'nodes:rename': z.strictObject({ id: nodeId, name: nonEmpty('name', LIMITS.nodeName) }),
  'nodes:remove': z.strictObject({ id: nodeId }),
  'demo:start': empty,
  'demo:reset': empty,
  'search:query': z.strictObject({
    query: nonEmpty('query', LIMITS.searchQuery),
    limit: clampLimit(LIMITS.searchMessages.default, LIMITS.searchMessages.max),
  }),
  'prefs:get': empty,
  'prefs:set': PREFERENCES_PATCH,
  'agents:list': empty,
  'agents:save': z.strictObject({
    id: boundedString('id', LIMITS.agentId).regex(/^[a-z0-9][a-z0-9_-]{0,63}$/i, {
      error: 'id must match [a-z0-9][a-z0-9_-]{0,63}',
    }),
    name: boundedString('name', LIMITS.agentName).optional(),
    provider: z
      .enum(PROVIDER_IDS, { error: `provider must be one of ${PROVIDER_IDS.join(', ')}` })
      .optional(),
    model: boundedString('model', LIMITS.model).optional(),
    baseUrl: boundedString('baseUrl', LIMITS.baseUrl)
      .refine((u) => u === '' || /^https?:\/\/[^\s]+$/.test(u), { error: 'baseUrl must be an http(s) URL' })
      .optional(),
    /** Write-only: set a new key. Never returned. */
    apiKey: boundedString('apiKey', LIMITS.apiKey).optional(),
    clearApiKey: z.boolean({ error: 'clearApiKey must be a boolean' }).optional(),
    systemPrompt: boundedString('systemPrompt', LIMITS.systemPrompt).optional(),
    heartbeatSeconds: z
      .number({ error: 'heartbeatSeconds must be a number' })
      .int({ error: 'heartbeatSeconds must be an integer' })
      .min(0, { error: `heartbeatSeconds must be between 0 and ${LIMITS.heartbeatSeconds}` })
      .max(LIMITS.heartbeatSeconds, {
        error: `heartbeatSeconds must be between 0 and ${LIMITS.heartbeatSeconds}`,
      })
      .optional(),
  }),
  'app:info': empty,
  /** The session on the person's screen (absent: none), so no notification is shown for it. */
  'ui:viewing': z.strictObject({ sessionKey: sessionKey.optional() }),
  'acp:profiles:list': empty,
  'acp:profiles:save': z.strictObject({
    id: profileId,
    name: nonEmpty('name', LIMITS.profileName),
    command: nonEmpty('command', LIMITS.command),
    args: z
      .array(boundedString('each argument', LIMITS.profileArg), { error: 'args must be a list of strings' })
      .max(LIMITS.profileArgs, { error: `args must have at most ${LIMITS.profileArgs} entries` })
      .optional()
      .transform((a) => a ?? []),
    env: profileEnv.optional().transform((e) => e ?? {}),
    /**
     * Names whose stored values stay as they are: the renderer only ever saw them masked, so an
     * unchanged variable is sent by name.
     */
    keepEnv: z
      .array(
        boundedString('keepEnv name', LIMITS.envName).regex(ENV_NAME, {
          error: 'keepEnv names must match [A-Za-z_][A-Za-z0-9_]*',
        }),
        { error: 'keepEnv must be a list of names' },
      )
      .max(LIMITS.profileEnv, { error: `keepEnv must have at most ${LIMITS.profileEnv} entries` })
      .optional(),
    /** Empty or absent: the gateway gives each child its own directory under the data dir. */
    cwd: boundedString('cwd', LIMITS.cwd)
      .refine((c) => c === '' || ABSOLUTE_PATH.test(c), { error: 'cwd must be an absolute path' })
      .optional(),
    allowAgents: z.boolean({ error: 'allowAgents must be a boolean' }).optional(),
    askTerminal: z.boolean({ error: 'askTerminal must be a boolean' }).optional(),
    reach: reachSchema.optional(),
  }),
  'acp:profiles:remove': z.strictObject({ id: profileId }),
  'acp:permissions:list': empty,
  'acp:permissions:respond': z.strictObject({
    requestId: nonEmpty('requestId', LIMITS.permissionId),
    /** Absent: reject. */
    optionId: nonEmpty('optionId', LIMITS.permissionId).optional(),
  }),
  'sessions:start': z
    .strictObject({
      agentId: boundedString('agentId', LIMITS.agentId)
        .min(1, { error: 'agentId must not be empty' })
        .optional(),
      acpProfileId: profileId.optional(),
      cwd: boundedString('cwd', LIMITS.cwd)
        .refine((c) => ABSOLUTE_PATH.test(c), { error: 'cwd must be an absolute path' })
        .optional(),
      label: boundedString('label', LIMITS.label).optional(),
      message: nonEmpty('message', LIMITS.messageText),
      parentKey: sessionKey.optional(),
      isolation: z.enum(['worktree', 'none'], { error: 'isolation must be worktree or none' }).optional(),
      base: boundedString('base', 200).optional(),
      worktreesFolder: boundedString('worktreesFolder', LIMITS.cwd)
        .refine((c) => ABSOLUTE_PATH.test(c), { error: 'worktreesFolder must be an absolute path' })
        .optional(),
      /** A paired node's id: the ACP agent runs there, in cwd on that machine (issue 30.1). */
      node: nonEmpty('node', LIMITS.nodeId).optional(),
    })
    .refine((s) => (s.agentId === undefined) !== (s.acpProfileId === undefined), {
      error: 'choose exactly one of agentId and acpProfileId',
    }),
  'sessions:impact': sessionOnly,
  'sessions:changes': sessionOnly,
  'sessions:reset': sessionOnly,
  'sessions:delete': sessionOnly,
  'sessions:archive': z.strictObject({
    sessionKey,
    archived: z.boolean({ error: 'archived must be a boolean' }),
  }),
  'runs:list': sessionOnly,
  'folders:check': z.strictObject({
    path: nonEmpty('path', LIMITS.cwd),
    node: nonEmpty('node', LIMITS.nodeId).optional(),
  }),
  'folders:pick': empty,
  'acp:registry:list': z.strictObject({
    refresh: z.boolean({ error: 'refresh must be a boolean' }).optional(),
  }),
  'acp:registry:plan': registryPlan,
  // The variables the person typed for the agent (API key, base URL, extra ones): the profile's env.
  'acp:registry:install': z.strictObject({ ...registryAgent, env: profileEnv.optional() }),
  'acp:installs:list': empty,
  'acp:auth:get': sessionOnly,
  'acp:auth:authenticate': z.strictObject({ sessionKey, methodId: nonEmpty('methodId', LIMITS.profileId) }),
  // The key goes from the page to the gateway once; it never comes back (views mask it).
  'acp:auth:key': z.strictObject({
    sessionKey,
    name: boundedString('name', LIMITS.envName).regex(ENV_NAME, {
      error: 'name must match [A-Za-z_][A-Za-z0-9_]*',
    }),
    value: nonEmpty('value', LIMITS.envValue),
  }),
  'mcp:list': empty,
  /** A credential for an existing session, or for a new one made for an agent outside Sightline. */
  'mcp:issue': z
    .strictObject({
      sessionKey: sessionKey.optional(),
      newSessionName: nonEmpty('newSessionName', LIMITS.sessionName).optional(),
      label: boundedString('label', LIMITS.mcpLabel).optional(),
      reach: reachSchema.optional(),
    })
    .refine((a) => (a.sessionKey === undefined) !== (a.newSessionName === undefined), {
      error: 'a credential needs exactly one of sessionKey and newSessionName',
    }),
  'mcp:revoke': z.strictObject({ id: nonEmpty('id', LIMITS.mcpCredentialId) }),
  'consent:list': empty,
  'consent:respond': z.strictObject({
    requestId: nonEmpty('requestId', LIMITS.permissionId),
    allow: z.boolean({ error: 'allow must be a boolean' }),
  }),
  'database:status': empty,
  'database:restore': z.strictObject({
    name: boundedString('name', LIMITS.backupName).regex(/^sightline-[0-9TZ-]+\.db$/, {
      error: 'name must be a backup name (sightline-<time>.db)',
    }),
  }),
  ...WORKTREE_SCHEMAS,
  ...LOGIN_TERMINAL_SCHEMAS,
  ...ACCOUNT_SCHEMAS,
} as const satisfies Record<Channel, z.ZodType>;

export type Schemas = typeof SCHEMAS;
/** What a caller passes (before defaults and clamping). */
export type ArgsInput<C extends Channel> = z.input<Schemas[C]>;
/** What a handler receives (after parsing). */
export type ArgsParsed<C extends Channel> = z.output<Schemas[C]>;

/** One readable line for the first problem: `<path>: <message>`, or just the message at the root. */
export function formatIssues(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid arguments';
  const path = issue.path.map(String).join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}

export type ParseResult<C extends Channel> =
  { ok: true; value: ArgsParsed<C> } | { ok: false; message: string };

export function parseArgs<C extends Channel>(channel: C, raw: unknown): ParseResult<C> {
  const schema = SCHEMAS[channel] as unknown as z.ZodType<ArgsParsed<C>>;
  const r = schema.safeParse(raw === undefined ? {} : raw);
  return r.success ? { ok: true, value: r.data } : { ok: false, message: formatIssues(r.error) };
}
