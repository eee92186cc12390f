// The catalog over paired nodes (issue 19.3-19.6): remote sessions in the list, adopting one,
// the monitor's check of a node's links, and "continue" run on the node. The node runs the same
// provider code as the local catalog and answers probes since a marker; the gateway keeps the
// links, markers, streaks, dedupe and events, exactly as for local links (monitor.apply).
//
// A node that is unreachable, slow or refusing is not a missing source: its links' checks are
// inconclusive (the streak does not move) and it shows offline; when it is back, each link
// resumes from its marker. Each node is checked on its own, bounded like a provider (45 s).
// The monitor's check of a node's links is in remote-check.ts.
import { adoptedKeyFor } from '../../../shared/session-keys';
import { GatewayError, notFound } from '../errors';
import { NodeOfflineError, NodeRequestError, type NodeConnection } from '../nodes/connection';
import type { NodesService } from '../nodes/service';
import type { CatalogEntry, CatalogProvider, Logger, SessionInfo } from '../types';
import { IMPORT_MESSAGES, writeAdoption, type AdoptDeps } from './adopt';
import { checkThreadId } from './thread-ids';
import type { Link, LinkRepo } from './links';
import type { RemoteChecks } from './monitor';
import type { ProviderModule, VisibleMessage } from './provider';
import { createRemoteCheck } from './remote-check';
import { wireEntry, wireMarker, wireMessages, wireRef } from './remote-wire';

/** A continue runs the upstream CLI: it may take as long as a turn. */
export const CONTINUE_TIMEOUT_MS = 31 * 60 * 1000;

export interface RemoteDeps {
  nodes: NodesService;
  links: LinkRepo;
  logger: Logger;
  now: () => number;
  modules: ReadonlyMap<string, ProviderModule>;
  adopt: Omit<AdoptDeps, 'hostId'>;
  requestTimeoutMs: number;
  budgetMs: number;
  /** Probes also map rows to visible messages (live transcripts). */
  visible: boolean;
  /** Whether nodes that can push file events are asked to (the catalog runs with file events). */
  pushes(): boolean;
}

/** A request to a node (op, arguments, timeout in ms). */
type Ask = <T>(
  hostId: string,
  conn: NodeConnection,
  op: string,
  args: Record<string, unknown>,
  ms: number,
) => Promise<T>;

/** The deps with the one way to ask a node. */
type Remote = RemoteDeps & { ask: Ask };

/** Asks a node; a timeout drops the connection (the node shows offline). */
function askVia(nodes: NodesService): Ask {
  return async <T>(
    hostId: string,
    conn: NodeConnection,
    op: string,
    args: Record<string, unknown>,
    ms: number,
  ) => {
    try {
      return await conn.request<T>(op, args, ms);
    } catch (err) {
      if (err instanceof NodeOfflineError && !conn.closed) nodes.drop(hostId, err.message);
      throw err;
    }
  };
}

function providerModule(d: RemoteDeps, provider: unknown): ProviderModule {
  const m = typeof provider === 'string' ? d.modules.get(provider) : undefined;
  if (!m) throw new GatewayError('invalid_argument', `Unknown catalog provider: ${String(provider)}`);
  return m;
}

function nodeName(d: RemoteDeps, hostId: string): string {
  return d.nodes.get(hostId)?.name ?? hostId;
}

/** What a node failure means for the person. */
function failure(d: RemoteDeps, hostId: string, err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  const name = nodeName(d, hostId);
  if (err instanceof NodeRequestError)
    return new GatewayError(
      err.code === 'not_found' ? 'not_found' : 'unavailable',
      `${name}: ${err.message}`,
    );
  if (err instanceof NodeOfflineError)
    return new GatewayError('unavailable', `The node "${name}" is offline: ${err.message}`);
  return new GatewayError('internal', `${name}: ${err instanceof Error ? err.message : String(err)}`);
}

async function listNode(r: Remote, hostId: string): Promise<CatalogEntry[]> {
  const { nodes, links } = r;
  const conn = await nodes.connection(hostId);
  const got = await r.ask<{ entries?: unknown }>(hostId, conn, 'list', {}, r.requestTimeoutMs);
  const raw = Array.isArray(got?.entries) ? got.entries : [];
  const info = nodes.get(hostId);
  const out: CatalogEntry[] = [];
  for (const v of raw) {
    const e = wireEntry(v, r.modules);
    if (!e) continue;
    const adopted = links.get(adoptedKeyFor(e.provider, e.threadId, hostId)) !== undefined;
    out.push({
      ...e,
      hostId,
      hostName: info?.name ?? hostId,
      remote: true,
      ...(adopted ? { adopted: true } : {}),
    });
  }
  nodes.checked(hostId, out.length);
  return out;
}

/** The sessions of every online node (a node that fails is left out, and logged). */
async function list(r: Remote): Promise<CatalogEntry[]> {
  const online = r.nodes.list().filter((n) => r.nodes.online(n.id));
  const lists = await Promise.all(
    online.map((n) =>
      listNode(r, n.id).catch((err: unknown) => {
        r.logger.warn('catalog: cannot list a node', {
          nodeId: n.id,
          error: String((err as Error)?.message ?? err),
        });
        return [];
      }),
    ),
  );
  return lists.flat();
}

/**
 * Adopts a session on a node: the node finds it and gives its baseline marker and the last
 * messages; the link and session are written here, in one transaction, as for a local one.
 */
async function adopt(
  r: Remote,
  input: { provider: CatalogProvider | string; threadId: string; hostId: string },
): Promise<SessionInfo> {
  const hostId = input.hostId;
  if (!r.nodes.get(hostId)) throw notFound(`Unknown host: ${hostId}`);
  const m = providerModule(r, input.provider);
  const threadId = typeof input.threadId === 'string' ? input.threadId.trim() : '';
  if (!threadId) throw new GatewayError('invalid_argument', 'threadId is required');
  checkThreadId(m, threadId);
  const malformed = (what: string) =>
    new GatewayError('unavailable', `${nodeName(r, hostId)}: the node answered with a malformed ${what}`);
  try {
    const conn = await r.nodes.connection(hostId);
    const found = await r.ask<{ entry?: unknown; ref?: unknown }>(
      hostId,
      conn,
      'find',
      { provider: m.id, threadId },
      r.requestTimeoutMs,
    );
    const entry = wireEntry(found?.entry, r.modules);
    const ref = wireRef(found?.ref);
    if (!entry || !ref || entry.provider !== m.id || entry.threadId !== threadId) throw malformed('session');
    const marker = wireMarker(
      await r.ask(hostId, conn, 'baseline', { provider: m.id, ref }, r.requestTimeoutMs),
    );
    if (!marker) throw malformed('marker');
    const key = adoptedKeyFor(m.id, threadId, hostId);
    let transcript: VisibleMessage[] = [];
    if (!r.adopt.sessions.get(key)) {
      try {
        const t = await r.ask<{ messages?: unknown }>(
          hostId,
          conn,
          'tail',
          { provider: m.id, ref, limit: IMPORT_MESSAGES },
          r.requestTimeoutMs,
        );
        transcript = wireMessages(t?.messages) ?? [];
      } catch (err) {
        r.logger.warn('catalog: transcript import failed', { sessionKey: key, error: String(err) });
      }
    }
    const a = { key, provider: m, loc: { entry, ref }, marker, transcript };
    return r.adopt.transaction(() => writeAdoption({ ...r.adopt, hostId }, a));
  } catch (err) {
    throw failure(r, hostId, err);
  }
}

/** "Continue" run on the node, when the node allows it (--allow-continue). */
async function continueIn(r: Remote, link: Link, text: string): Promise<string> {
  const hostId = link.hostId;
  const name = nodeName(r, hostId);
  try {
    const conn = await r.nodes.connection(hostId);
    if (r.nodes.hello(hostId)?.allowContinue !== true)
      throw new GatewayError(
        'unavailable',
        `Cannot continue this session: the node "${name}" was started without --allow-continue, so it only reads sessions there`,
      );
    const got = await r.ask<{ stdout?: unknown }>(
      hostId,
      conn,
      'continue',
      {
        provider: link.provider,
        threadId: link.threadId,
        text,
        cwd: link.cwd,
      },
      CONTINUE_TIMEOUT_MS,
    );
    return typeof got?.stdout === 'string' ? got.stdout.slice(0, 256 * 1024) : '';
  } catch (err) {
    throw failure(r, hostId, err);
  }
}

export function createRemoteCatalog(d: RemoteDeps) {
  const r: Remote = { ...d, ask: askVia(d.nodes) };
  const remoteCheck = createRemoteCheck(r);
  const checks: RemoteChecks = {
    isRemote: (hostId) => d.nodes.isNode(hostId),
    check: remoteCheck.check,
    onPushed: remoteCheck.onPushed,
    stale: remoteCheck.stale,
    follow: remoteCheck.follow,
  };
  return {
    list: () => list(r),
    adopt: (input: Parameters<typeof adopt>[1]) => adopt(r, input),
    checks,
    continue: (link: Link, text: string) => continueIn(r, link, text),
  };
}

export type RemoteCatalog = ReturnType<typeof createRemoteCatalog>;
