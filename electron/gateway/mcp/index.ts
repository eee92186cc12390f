// `gateway.mcp` (contract): the session tools over MCP. One tool registry, two transports (the
// streamable-HTTP endpoint here, the stdio shim relaying to it). A credential stands for one
// session: its client acts as that session exactly as `tools.call(sessionKey, …)` does, and no
// argument can change who it is. ACP children get a credential of their own session when their
// agent starts; a person mints one in Settings for an agent running outside Sightline, whose
// pending notices then lead its next tool result (it has no turns to drain them).
// Over 300 lines on purpose: the credentials' life (issue, ACP start and release, revoke) and the
// endpoint they point at change together; the parts are named functions over the same deps.
import { randomBytes, randomUUID } from 'node:crypto';
import type { McpServer as AcpMcpServer } from '@agentclientprotocol/sdk';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  DEFAULT_ACP_REACH,
  DEFAULT_ISSUED_REACH,
  isReach,
  REACH_RULES,
  REACH_WIDTH,
  type Reach,
} from '../../../shared/ipc/reach';
import { externalKeyFor, parseSessionKey } from '../../../shared/session-keys';
import { GatewayError, invalidArgument, notFound } from '../errors';
import { systemNote } from '../runtime/system-note';
import type { SessionStore } from '../sessions/store';
import { oneLine } from '../state/record-input';
import type { ToolRegistry } from '../tools/registry';
import type { Logger, NoticeQueue, Sessions, ToolCallRecord } from '../types';
import type { Credential, CredentialStore } from './credentials';
import { listenMcp, MCP_HOST, MCP_PATH, type McpHttp } from './http';
import type { ShimLocation } from './shim';
import { serveMcp, toCallToolResult } from './tool-server';

export const MCP_SERVER_NAME = 'sightline';
export const NOTICES_TOOL = 'session_notices';
const LABEL_MAX = 200;

export interface McpDeps {
  logger: Logger;
  credentials: CredentialStore;
  store: SessionStore;
  sessions: Pick<Sessions, 'create' | 'delete'>;
  registry: ToolRegistry;
  notices: Pick<NoticeQueue, 'drain'>;
  /** An ACP agent's MCP tool call, into its session's transcript like a built-in agent's. */
  recordToolCall(sessionKey: string, call: ToolCallRecord, resultText: string): void;
  shim: ShimLocation | undefined;
  /**
   * Whether this gateway serves the session's MCP calls: only the gateway that runs it does
   * (ownership.owns), when several share the database; another one answers as to a bad credential.
   */
  owns(sessionKey: string): boolean;
  /** The person's say on a credential wider than `tree` (issue 29.3); absent: trusted code. */
  confirm?: (question: {
    kind: 'credential';
    title: string;
    command: { program: string; args: string[] };
    sessionKey: string;
  }) => Promise<void>;
}

/** A credential as `mcp.list` shows it (the contract's fields, plus kind and the port it was issued for). */
export interface McpCredentialInfo {
  id: string;
  sessionKey: string;
  label?: string;
  createdAt: number;
  lastUsedAt?: number;
  client?: string;
  kind: Credential['kind'];
  issuedPort: number;
  reach: Reach;
}

export interface McpIssued {
  id: string;
  secret: string;
  url: string;
  command?: string[];
}

interface Caller {
  credential: Credential;
  sessionKey: string;
  agentId: string;
}

const urlOf = (port: number) => `http://${MCP_HOST}:${port}${MCP_PATH}`;

function authenticate(deps: McpDeps, secret: string): Caller | undefined {
  const credential = deps.credentials.verify(secret);
  if (!credential) return undefined;
  const session = deps.store.get(credential.sessionKey);
  // An ACP child's credential exists only while its agent runs, which for a person's start is
  // before its session is committed: the agent may list the tools then (Claude Code does, during
  // session/new); a call made before the commit finds no session and says so.
  if (!session && credential.kind === 'acp') {
    const agentId = parseSessionKey(credential.sessionKey).agentId ?? 'main';
    return { credential, sessionKey: credential.sessionKey, agentId };
  }
  if (!session || !deps.owns(session.key)) return undefined;
  return { credential, sessionKey: session.key, agentId: session.agentId };
}

function listTools(deps: McpDeps, caller: Caller): Tool[] {
  const list = deps.registry.list().map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: t.parameters as Tool['inputSchema'],
  }));
  // Names only: which session's client looked, and how much it was offered.
  deps.logger.info('mcp: tools listed', {
    sessionKey: caller.sessionKey,
    client: caller.credential.client,
    count: list.length,
  });
  return list;
}

async function callTool(
  deps: McpDeps,
  caller: Caller,
  name: string,
  args: Record<string, unknown> | undefined,
  signal: AbortSignal,
) {
  // An outside agent has no turn to drain its notices: its next tool result starts with them.
  const head =
    caller.credential.kind === 'external' && name !== NOTICES_TOOL
      ? deps.notices.drain(caller.sessionKey).map((e) => e.text)
      : [];
  const result = await deps.registry.call(
    { caller: caller.sessionKey, callerAgentId: caller.agentId, signal, reach: caller.credential.reach },
    name,
    args ?? {},
  );
  if (caller.credential.kind === 'acp') {
    const record = { id: `mcp-${randomUUID().slice(0, 8)}`, name, arguments: args ?? {} };
    deps.recordToolCall(caller.sessionKey, record, result.ok ? result.text : `Error: ${result.error}`);
  }
  return toCallToolResult(result, head.length ? { text: systemNote(head), notices: head } : undefined);
}

/** The client's own name, from an `initialize` request. */
function clientName(body: unknown): string | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const msg = body as { method?: unknown; params?: { clientInfo?: { name?: unknown } } };
  if (msg.method !== 'initialize') return undefined;
  const name = msg.params?.clientInfo?.name;
  return typeof name === 'string' ? oneLine(name, 100) || undefined : undefined;
}

function credentialInfo(c: Credential): McpCredentialInfo {
  return {
    id: c.id,
    sessionKey: c.sessionKey,
    ...(c.label !== undefined ? { label: c.label } : {}),
    createdAt: c.createdAt,
    ...(c.lastUsedAt !== undefined ? { lastUsedAt: c.lastUsedAt } : {}),
    ...(c.client !== undefined ? { client: c.client } : {}),
    kind: c.kind,
    issuedPort: c.port,
    reach: c.reach,
  };
}

/**
 * The endpoint, started at its first use: listening on its saved port when that is free (else
 * anywhere, saved anew). A failed start is tried again at the next use.
 */
function createEndpoint(deps: McpDeps) {
  const { credentials, logger } = deps;
  let pending: Promise<McpHttp> | undefined;
  let live: McpHttp | undefined;
  let closed = false;
  const serve = (
    caller: Caller,
    req: Parameters<typeof serveMcp>[1],
    res: Parameters<typeof serveMcp>[2],
    body: unknown,
  ) => {
    credentials.touch(caller.credential.id, clientName(body));
    return serveMcp(
      {
        list: () => listTools(deps, caller),
        call: (name, args, signal) => callTool(deps, caller, name, args, signal),
      },
      req,
      res,
      body,
    );
  };
  const start = async (): Promise<McpHttp> => {
    const saved = credentials.savedPort();
    const http = await listenMcp<Caller>(
      { authenticate: (secret) => authenticate(deps, secret), serve },
      { port: saved ?? 0, logger },
    );
    if (closed) {
      await http.close();
      throw new GatewayError('unavailable', 'The gateway is closed');
    }
    if (http.port !== saved) {
      if (saved !== undefined)
        logger.warn('mcp: saved port was taken; listening on another', { saved, port: http.port });
      credentials.savePort(http.port);
    }
    live = http;
    return http;
  };
  return {
    get(): Promise<McpHttp> {
      if (closed) return Promise.reject(new GatewayError('unavailable', 'The gateway is closed'));
      pending ??= start().catch((err: unknown) => {
        pending = undefined; // the next use tries again
        throw err;
      });
      return pending;
    },
    live: () => live,
    close(): void {
      closed = true;
      void live?.close();
      live = undefined;
    },
  };
}

/** A credential wider than `tree` reaches sessions its agent did not start: the person says so. */
async function confirmReach(
  deps: McpDeps,
  reach: Reach,
  sessionKey: string,
  label: string | undefined,
  url: string,
): Promise<void> {
  if (REACH_WIDTH[reach] === 0 || !deps.confirm) return;
  const command = shimCommand(deps, url);
  await deps.confirm({
    kind: 'credential',
    title: `Give the outside agent "${label ?? sessionKey}" a credential that reaches ${REACH_RULES[reach]} (reach "${reach}")`,
    command: command ? { program: command[0]!, args: command.slice(1) } : { program: url, args: [] },
    sessionKey,
  });
}

const shimCommand = (deps: McpDeps, url: string) =>
  deps.shim ? [deps.shim.node, deps.shim.script, url] : undefined;

/** `mcp.issue`'s options, checked like any input. */
function checkedIssue(sessionKey: string, opts: { label?: string; reach?: Reach }) {
  if (typeof sessionKey !== 'string' || sessionKey.length === 0)
    throw invalidArgument('sessionKey is required');
  if (parseSessionKey(sessionKey).kind === 'bare')
    throw invalidArgument(`MCP credentials are for agent-qualified sessions: ${sessionKey}`);
  if (opts.label !== undefined && typeof opts.label !== 'string')
    throw invalidArgument('label must be a string');
  if (opts.reach !== undefined && !isReach(opts.reach))
    throw invalidArgument('reach must be one of tree, agent, all');
  return {
    reach: opts.reach ?? DEFAULT_ISSUED_REACH,
    label: opts.label === undefined ? undefined : oneLine(opts.label, LABEL_MAX) || undefined,
  };
}

/** What an ACP child's `session/new` is offered: HTTP with a bearer secret, else the stdio shim. */
function acpServerEntry(deps: McpDeps, url: string, secret: string, http: boolean): AcpMcpServer {
  if (http)
    return {
      type: 'http',
      name: MCP_SERVER_NAME,
      url,
      headers: [{ name: 'Authorization', value: `Bearer ${secret}` }],
    };
  const shim = deps.shim!;
  return {
    name: MCP_SERVER_NAME,
    command: shim.node,
    args: [shim.script, url],
    env: [{ name: 'SIGHTLINE_MCP_SECRET', value: secret }],
  };
}

/**
 * The MCP servers for an ACP child's `session/new`: a fresh credential of its own session,
 * reaching what its profile says (the previous agent's is revoked), valid at once, over HTTP when
 * the agent takes it, else the stdio shim. Empty when neither can be offered; the agent then runs
 * without Sightline's tools. The one path for person-started and spawned agents alike: the
 * credential is released with the agent (`releaseAcp`), also when its start fails.
 */
async function offerAcpServers(
  deps: McpDeps,
  endpoint: Endpoint,
  sessionKey: string,
  caps: { http: boolean },
  reach: Reach,
): Promise<AcpMcpServer[]> {
  const { credentials, logger } = deps;
  credentials.revokeAcp(sessionKey);
  let http: McpHttp;
  try {
    http = await endpoint.get();
  } catch (err) {
    logger.warn('mcp: no endpoint for an ACP child', { sessionKey, error: String(err) });
    return [];
  }
  if (!caps.http && !deps.shim) {
    logger.warn('mcp: the agent takes stdio MCP only and no Node runs the shim', { sessionKey });
    return [];
  }
  const { secret } = credentials.issueAcp({ sessionKey, label: 'acp', port: http.port, reach });
  logger.info('mcp: server offered to an ACP agent', {
    sessionKey,
    transport: caps.http ? 'http' : 'stdio',
  });
  return [acpServerEntry(deps, urlOf(http.port), secret, caps.http)];
}

type Endpoint = ReturnType<typeof createEndpoint>;

export type Mcp = ReturnType<typeof createMcp>;

export function createMcp(deps: McpDeps) {
  const { credentials, logger } = deps;
  const endpoint = createEndpoint(deps);

  // Start-up: no ACP agent of an earlier run is alive, so neither are their secrets. Credentials
  // minted for outside agents are why the endpoint listens at once (on the same port).
  credentials.revokeAllAcp();
  if (credentials.hasExternal())
    endpoint
      .get()
      .catch((err: unknown) => logger.warn('mcp: endpoint did not start', { error: String(err) }));

  const issue = async (
    sessionKey: string,
    opts: { label?: string; reach?: Reach } = {},
  ): Promise<McpIssued> => {
    const { reach, label } = checkedIssue(sessionKey, opts);
    const http = await endpoint.get();
    const url = urlOf(http.port);
    if (!deps.store.get(sessionKey)) throw notFound(`Unknown sessionKey: ${sessionKey}`);
    await confirmReach(deps, reach, sessionKey, label, url);
    // Looked up after the waits: a session deleted meanwhile gets no credential.
    const session = deps.store.get(sessionKey);
    if (!session) throw notFound(`Unknown sessionKey: ${sessionKey}`);
    const { id, secret } = credentials.issue({ sessionKey: session.key, label, port: http.port, reach });
    const command = shimCommand(deps, url);
    return { id, secret, url, ...(command ? { command } : {}) };
  };

  return {
    issue,
    /**
     * What Settings does for an agent a person runs outside Sightline with no session yet: a new
     * session named for it (`agent:main:external:…`, never prompted by Sightline) and its
     * credential; when the credential cannot be made, the session goes again.
     */
    async issueForNewSession(
      name: string,
      opts: { label?: string; reach?: Reach } = {},
    ): Promise<McpIssued & { sessionKey: string }> {
      const label = typeof name === 'string' ? oneLine(name, LABEL_MAX) : '';
      if (!label) throw invalidArgument('a name for the new session is required');
      const { key } = deps.sessions.create({
        key: externalKeyFor('main', label, randomBytes(3).toString('hex')),
        label,
      });
      try {
        return { ...(await issue(key, opts)), sessionKey: key };
      } catch (err) {
        deps.sessions.delete(key);
        throw err;
      }
    },
    revoke(id: string): boolean {
      return typeof id === 'string' && credentials.revoke(id);
    },
    list(sessionKey?: string): McpCredentialInfo[] {
      const key = sessionKey === undefined ? undefined : parseSessionKey(sessionKey).key;
      return credentials.list(key).map(credentialInfo);
    },
    /** Where the endpoint listens now, if it does. */
    status(): { url: string; port: number } | undefined {
      const live = endpoint.live();
      return live ? { url: urlOf(live.port), port: live.port } : undefined;
    },
    /** Where the endpoint listens (starting it if needed). */
    async endpoint(): Promise<{ url: string; port: number }> {
      const http = await endpoint.get();
      return { url: urlOf(http.port), port: http.port };
    },
    acpServers: (sessionKey: string, caps: { http: boolean }, reach: Reach = DEFAULT_ACP_REACH) =>
      offerAcpServers(deps, endpoint, sessionKey, caps, reach),
    /** An ACP child's agent is gone: its credential ends with it. */
    releaseAcp: (sessionKey: string): void => credentials.revokeAcp(sessionKey),
    close: (): void => endpoint.close(),
  };
}
