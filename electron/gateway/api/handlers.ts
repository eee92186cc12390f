// The API handlers behind every IPC channel: Electron's ipcMain wrapper and browser mode's
// WebSocket both call `dispatch`, which parses with the channel's zod schema, runs the handler
// and returns the result envelope. It never throws. Over 330 lines because it is the one table
// of every channel and its handler, in four groups by domain; each handler is a line or two that
// calls a service.
import { isChannel, type Channel } from '../../../shared/ipc/channels';
import type { Envelope, ResultMap } from '../../../shared/ipc/contract';
import { parseArgs, type ArgsParsed } from '../../../shared/ipc/schemas';
import { fleetToWire, type AppInfo, type FolderCheck, type SessionView } from '../../../shared/ipc/types';
import { normalizeSessionKey } from '../../../shared/session-keys';
import { GatewayError, toIpcError } from '../errors';
import { checkFolder } from '../runtime/start';
import type { GatewayHost } from '../host';
import type { SessionInfo } from '../types';
import type { Actor, GatewayApi } from './gateway-api';
import { createMemoryDismissalStore, type DismissalStore } from '../person/dismissals';
import {
  agentView,
  fleetViews,
  inboxItems,
  mcpView,
  pendingNotices,
  profileView,
  sessionView,
  transcriptPage,
} from './views';
import { searchSessions } from './search';
import { catalogRootViews } from './catalog-roots';
import { createMemoryPreferenceStore, type PreferenceStore } from '../person/preferences';
import { loginHandlers } from './login-handlers';
import { worktreeHandlers } from './worktree-handlers';

/** The API's own refusals are the gateway's typed errors, mapped by type like the services'. */
export { GatewayError as ApiError };

export type Handler<C extends Channel> = (args: ArgsParsed<C>) => Promise<ResultMap[C]>;
export type HandlerMap = { [C in Channel]: Handler<C> };

export interface ApiOptions {
  app: AppInfo;
  /** Default: the gateway's own (its database), else in memory. */
  dismissals?: DismissalStore;
  /** Default: the gateway's own (its database), else in memory. */
  preferences?: PreferenceStore;
  now?: () => number;
  /** The host's native folder picker (Electron); browser mode has none (the person types a path). */
  pickFolder?: () => Promise<string | undefined>;
  /** The app's gateway host (electron/gateway/host.ts): notices and restores. Absent for scripts. */
  database?: Pick<GatewayHost, 'notice' | 'restore'>;
  /** The person behind this transport on a shared gateway (`npm run serve`): their account id
   *  becomes the actor id of their turns. Absent: the local person (`local-user`). */
  actorId?: string;
}

export interface ApiHandlers {
  handlers: HandlerMap;
  /** The session the person looks at, as the renderer last said (`ui:viewing`). */
  viewing(): string | undefined;
  dispatch(channel: unknown, rawArgs: unknown): Promise<Envelope<unknown>>;
}

const sharedOnly = async (): Promise<never> => {
  throw new GatewayError(
    'unavailable',
    'This is your own gateway: people and the audit view belong to a shared one (npm run serve)',
  );
};

/** What every group of handlers shares: the gateway, the options and the session lookups. */
interface Ctx {
  gw: GatewayApi;
  opts: ApiOptions;
  now: () => number;
  dismissals: DismissalStore;
  preferences: PreferenceStore;
  /** The actor id of the person's turns on a shared gateway (spread into the call). */
  actor: { actorId?: string };
  HUMAN: Actor;
  session(rawKey: string): SessionInfo;
  view(info: SessionInfo): SessionView;
  setViewing(key: string | undefined): void;
}

/** One group of the table: the channels it names, each handler typed by its channel. */
const group = <K extends Channel>(handlers: { [C in K]: Handler<C> }): { [C in K]: Handler<C> } => handlers;

/** The fleet, sessions and their runs. */
function sessionHandlers(c: Ctx) {
  const { gw, now, dismissals, actor, session, view } = c;
  const snapshot = () => ({
    agents: gw.agents.list().map(agentView),
    sessions: fleetViews(gw, dismissals),
    generatedAt: now(),
  });
  return group({
    'fleet:snapshot': async () => snapshot(),
    'fleet:compact': async () => fleetToWire(snapshot()),
    'sessions:get': async ({ sessionKey }) => view(session(sessionKey)),
    'sessions:seen': async ({ sessionKey }) => {
      gw.status.seen(session(sessionKey).key);
      return { seen: true };
    },
    'human:send': async ({ sessionKey, text }) => {
      const info = session(sessionKey);
      await gw.human.send(info.key, text, { channel: 'desktop', ...actor });
      return { accepted: true };
    },
    'runs:cancel': async ({ sessionKey }) => ({ cancelled: gw.runtime.cancel(session(sessionKey).key) }),
    'runs:retry': async ({ sessionKey }) => ({ retried: gw.runtime.retry(session(sessionKey).key) }),
    'runs:list': async ({ sessionKey }) => gw.runs.list(session(sessionKey).key),
    'sessions:start': async ({
      agentId,
      acpProfileId,
      cwd,
      label,
      message,
      parentKey,
      isolation,
      base,
      worktreesFolder,
      node,
    }) =>
      view(
        await gw.sessions.start({
          message,
          ...(node !== undefined ? { node } : {}),
          ...(isolation !== undefined ? { isolation } : {}),
          ...(base !== undefined ? { base } : {}),
          ...(worktreesFolder !== undefined ? { worktreesFolder } : {}),
          ...(agentId !== undefined ? { agentId } : {}),
          ...(acpProfileId !== undefined ? { acpProfileId } : {}),
          ...(cwd !== undefined ? { cwd } : {}),
          ...(label !== undefined ? { label } : {}),
          ...(parentKey !== undefined ? { parentKey: session(parentKey).key } : {}),
          ...actor,
        }),
      ),
    'sessions:changes': async ({ sessionKey }) => ({
      files: gw.transcripts.changedFiles(session(sessionKey).key),
    }),
    'sessions:impact': async ({ sessionKey }) => gw.sessions.impact(session(sessionKey).key),
    'sessions:reset': async ({ sessionKey }) => {
      const info = session(sessionKey);
      gw.sessions.reset(info.key);
      return view(session(info.key));
    },
    'sessions:delete': async ({ sessionKey }) => {
      const info = session(sessionKey);
      gw.sessions.delete(info.key, info.agentId);
      return { deleted: true };
    },
    'sessions:archive': async ({ sessionKey, archived }) =>
      view(gw.sessions.archive(session(sessionKey).key, archived)),
  });
}

/** What a session shows: transcript, goal, timeline, watchers; the Inbox and search. */
function stateHandlers(c: Ctx) {
  const { gw, now, dismissals, preferences, HUMAN, session } = c;
  return group({
    'transcript:page': async ({ sessionKey, beforeId, limit }) => {
      const info = session(sessionKey);
      const page = gw.transcripts.page(info.key, { ...(beforeId !== undefined ? { beforeId } : {}), limit });
      return transcriptPage(gw, info.key, page, beforeId === undefined);
    },
    'goals:set': async ({ sessionKey, objective, status }) => {
      const info = session(sessionKey);
      return gw.goals.set(
        info.key,
        { ...(objective !== undefined ? { objective } : {}), ...(status !== undefined ? { status } : {}) },
        HUMAN,
      );
    },
    'goals:clear': async ({ sessionKey }) => {
      gw.goals.clear(session(sessionKey).key, HUMAN);
      return { cleared: true };
    },
    'timeline:page': async ({ sessionKey, agentId, beforeSequence, limit, kinds, actorTypes }) => {
      const info = session(sessionKey);
      const rows = gw.state.timeline(info.key, {
        agentId: agentId ?? info.agentId,
        limit: limit + 1,
        ...(beforeSequence !== undefined ? { beforeSequence } : {}),
        ...(kinds && kinds.length > 0 ? { kinds } : {}),
        ...(actorTypes && actorTypes.length > 0 ? { actorTypes } : {}),
      });
      return {
        events: rows.slice(0, limit),
        hasMore: rows.length > limit,
        stateVersion: gw.state.version(info.key, info.agentId),
      };
    },
    'watchers:get': async ({ sessionKey }) => {
      const info = session(sessionKey);
      const { watchedBy, watching } = gw.state.watchers(info.key);
      return {
        sessionKey: info.key,
        stateVersion: gw.state.version(info.key, info.agentId),
        watchedBy,
        watching,
      };
    },
    'inbox:list': async () => inboxItems(gw, dismissals, preferences.get().inbox),
    'inbox:history': async ({ beforeId, limit }) => ({
      // Pending notices head the first page only.
      pending: beforeId === undefined ? pendingNotices(gw) : [],
      ...gw.noticeHistory.page({ ...(beforeId !== undefined ? { beforeId } : {}), limit }),
    }),
    'inbox:dismiss': async ({ id }) => {
      dismissals.add(id, now());
      return { dismissed: true };
    },
    'search:query': async ({ query, limit }) => searchSessions(gw, query, limit),
  });
}

/** ACP agents: profiles, permissions, the registry and authentication. */
function acpHandlers(c: Ctx) {
  const { gw, session } = c;
  return group({
    'acp:profiles:list': async () => gw.acp.profiles.list().map(profileView),
    'acp:profiles:save': async ({
      id,
      name,
      command,
      args,
      env,
      keepEnv,
      cwd,
      allowAgents,
      askTerminal,
      reach,
    }) => {
      // The page only saw masked values: the ones it kept are taken from what is stored.
      const stored = gw.acp.profiles.get(id)?.env ?? {};
      const kept = Object.fromEntries((keepEnv ?? []).filter((k) => k in stored).map((k) => [k, stored[k]!]));
      const saved = await gw.acp.profiles.propose({
        id,
        name,
        command,
        args,
        env: { ...kept, ...env },
        ...(cwd ? { cwd } : {}),
        ...(allowAgents !== undefined ? { allowAgents } : {}),
        ...(askTerminal !== undefined ? { askTerminal } : {}),
        ...(reach !== undefined ? { reach } : {}),
      });
      return profileView(saved);
    },
    'acp:profiles:remove': async ({ id }) => ({ removed: gw.acp.profiles.remove(id) }),
    'acp:permissions:list': async () => gw.acp.permissions.pending(),
    'acp:permissions:respond': async ({ requestId, optionId }) => {
      const resolved = gw.acp.permissions.respond(requestId, optionId);
      if (!resolved) throw new GatewayError('not_found', `Unknown permission request: ${requestId}`);
      return { resolved: true };
    },
    'acp:registry:list': async ({ refresh }) => gw.acp.registry.listing(refresh ? { refresh } : {}),
    'acp:registry:plan': async ({ agentId, distribution }) => gw.acp.registry.plan(agentId, distribution),
    // The page showed the plan (command line, download and folder); before anything is downloaded
    // or run the person allows the exact command line through the consent port (Electron: a
    // native dialog the page cannot answer; browser mode: the page).
    'acp:registry:install': async ({ agentId, distribution, env }) =>
      profileView(
        await gw.acp.registry.install(agentId, {
          ...(distribution ? { distribution } : {}),
          ...(env ? { env } : {}),
          confirm: (plan) =>
            gw.consent.confirm({
              kind: 'acp-profile',
              title: plan.download
                ? `Download ${plan.name} ${plan.version} from ${new URL(plan.download.url).host} into ${plan.download.folder} and run it`
                : `Run the ACP agent "${plan.name}" through ${plan.distribution}`,
              command: { program: plan.command, args: plan.args, env: plan.env },
            }),
        }),
      ),
    'acp:installs:list': async () => gw.acp.registry.installs.list(),
    'acp:auth:get': async ({ sessionKey }) => gw.acp.auth.view(session(sessionKey).key),
    'acp:auth:authenticate': async ({ sessionKey, methodId }) => {
      await gw.acp.auth.authenticate(session(sessionKey).key, methodId);
      return { authenticated: true as const };
    },
    'acp:auth:key': async ({ sessionKey, name, value }) => {
      await gw.acp.auth.setKey(session(sessionKey).key, name, value);
      return { saved: true as const };
    },
  });
}

/** New session's folder check: on this machine, or on the paired node it runs on (issue 30.1). */
async function checkFolderOn(gw: GatewayApi, path: string, node: string | undefined): Promise<FolderCheck> {
  // On a node the folder is that machine's: the node checks it (unreachable: the reason why).
  if (node !== undefined) {
    if (!gw.nodeAgents) throw new GatewayError('unavailable', 'This gateway starts no agents on nodes');
    return gw.nodeAgents.checkFolder(node, path).then(
      (real) => ({ path: real, ok: true }),
      (err: unknown) => ({ path, ok: false, reason: err instanceof Error ? err.message : String(err) }),
    );
  }
  try {
    return { path: checkFolder(path), ok: true };
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
    return { path, ok: false, reason: err.message };
  }
}

/** The rest of the app: catalog, nodes, settings, MCP credentials, consent, the database. */
function appHandlers(c: Ctx) {
  const { gw, opts, now, preferences, session, view } = c;
  return group({
    'catalog:list': async () => gw.catalog.listAsync(),
    'catalog:adopt': async ({ provider, threadId, hostId }) =>
      view(await gw.catalog.adopt({ provider, threadId, ...(hostId !== undefined ? { hostId } : {}) })),
    'catalog:roots': async () => catalogRootViews(gw.catalogRoots),
    'nodes:list': async () => gw.catalog.nodes.list(),
    // A node command the person names is asked for by the gateway (consent) before it runs.
    'nodes:add': async (input) => gw.catalog.nodes.add(input),
    'nodes:rename': async ({ id, name }) => gw.catalog.nodes.rename(id, name),
    'nodes:remove': async ({ id }) => {
      gw.catalog.nodes.remove(id);
      return { removed: true };
    },
    'demo:start': async () => gw.runtime.startDemo(),
    'demo:reset': async () => gw.runtime.resetDemo(),
    'prefs:get': async () => preferences.get(),
    'prefs:set': async (patch) => preferences.set(patch, now()),
    'agents:list': async () => gw.agents.list().map(agentView),
    'agents:save': async (a) => agentView(gw.agents.update(a)),
    'app:info': async () => ({ ...opts.app, secrets: gw.secrets.info }),
    'ui:viewing': async ({ sessionKey }) => {
      c.setViewing(sessionKey === undefined ? undefined : normalizeSessionKey(sessionKey));
      return { viewing: true };
    },
    'folders:check': ({ path, node }) => checkFolderOn(gw, path, node),
    'folders:pick': async () => {
      if (!opts.pickFolder)
        throw new GatewayError('unavailable', 'No folder picker in browser mode: type the folder path');
      const picked = await opts.pickFolder();
      return picked === undefined ? {} : { path: picked };
    },
    'mcp:list': async () => mcpView(gw),
    // The secret goes to the renderer here, once, to be shown to the person; never again.
    'mcp:issue': async ({ sessionKey, newSessionName, label, reach }) => {
      const opts = { ...(label ? { label } : {}), ...(reach ? { reach } : {}) };
      if (sessionKey === undefined) return gw.mcp.issueForNewSession(newSessionName!, opts);
      const key = session(sessionKey).key;
      return { ...(await gw.mcp.issue(key, opts)), sessionKey: key };
    },
    'mcp:revoke': async ({ id }) => ({ revoked: gw.mcp.revoke(id) }),
    'consent:list': async () => gw.consent.pending(),
    'consent:respond': async ({ requestId, allow }) => {
      gw.consent.respond(requestId, allow);
      return { resolved: true };
    },
    'database:status': async () => {
      const notice = opts.database?.notice();
      return {
        path: gw.backups.databasePath,
        backups: gw.backups.list().map(({ name, takenAt, bytes }) => ({ name, takenAt, bytes })),
        canRestore: opts.database !== undefined,
        ...(notice ? { notice } : {}),
      };
    },
    // People and the audit view belong to a shared gateway: npm run serve answers these itself.
    'accounts:me': sharedOnly,
    'accounts:list': sharedOnly,
    'accounts:invite': sharedOnly,
    'accounts:revoke': sharedOnly,
    'audit:list': sharedOnly,
    'database:restore': async ({ name }) => {
      if (!opts.database)
        throw new GatewayError('unavailable', 'Restoring a backup needs the app (Electron or npm run web)');
      await opts.database.restore(name);
      return { restoring: true };
    },
  });
}

export function createApiHandlers(gw: GatewayApi, opts: ApiOptions): ApiHandlers {
  let viewing: string | undefined;
  const dismissals = opts.dismissals ?? gw.person?.dismissals ?? createMemoryDismissalStore();
  const session = (rawKey: string): SessionInfo => {
    const key = normalizeSessionKey(rawKey);
    const info = gw.sessions.get(key);
    if (!info) throw new GatewayError('not_found', `Unknown sessionKey: ${rawKey}`);
    return info;
  };
  const c: Ctx = {
    gw,
    opts,
    now: opts.now ?? Date.now,
    dismissals,
    preferences: opts.preferences ?? gw.person?.preferences ?? createMemoryPreferenceStore(),
    actor: opts.actorId !== undefined ? { actorId: opts.actorId } : {},
    HUMAN: opts.actorId !== undefined ? { type: 'human', id: opts.actorId } : { type: 'human' },
    session,
    view: (info) => sessionView(gw, info, dismissals),
    setViewing: (key) => (viewing = key),
  };
  const handlers: HandlerMap = {
    ...worktreeHandlers(
      () => {
        if (!gw.worktrees) throw new GatewayError('unavailable', 'this gateway has no worktrees');
        return gw.worktrees;
      },
      session,
      opts.actorId,
    ),
    ...sessionHandlers(c),
    ...stateHandlers(c),
    ...acpHandlers(c),
    ...loginHandlers(() => gw.acp?.login, session),
    ...appHandlers(c),
  };

  async function dispatch(channel: unknown, rawArgs: unknown): Promise<Envelope<unknown>> {
    if (!isChannel(channel)) {
      // Never String(channel): an object from the wire may carry a toString that throws.
      const name = typeof channel === 'string' ? channel.slice(0, 100) : `(${typeof channel})`;
      return { ok: false, error: { code: 'unknown_channel', message: `Unknown channel: ${name}` } };
    }
    const parsed = parseArgs(channel, rawArgs);
    if (!parsed.ok) return { ok: false, error: { code: 'invalid_argument', message: parsed.message } };
    try {
      const handler = handlers[channel] as (args: unknown) => Promise<unknown>;
      return { ok: true, value: await handler(parsed.value) };
    } catch (err) {
      return { ok: false, error: toIpcError(err) };
    }
  }

  return { handlers, dispatch, viewing: () => viewing };
}
