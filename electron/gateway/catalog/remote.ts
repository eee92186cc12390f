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
}

export function createRemoteCatalog(d: RemoteDeps) {
  const { nodes, links, logger } = d;

  /** A request to a node; a timeout drops the connection (the node shows offline). */
  async function ask<T>(
    hostId: string,
    conn: NodeConnection,
    op: string,
    args: Record<string, unknown>,
    ms: number,
  ) {
    try {
      return await conn.request<T>(op, args, ms);
    } catch (err) {
      if (err instanceof NodeOfflineError && !conn.closed) nodes.drop(hostId, err.message);
      throw err;
    }
  }

  function module(provider: unknown): ProviderModule {
    const m = typeof provider === 'string' ? d.modules.get(provider) : undefined;
    if (!m) throw new GatewayError('invalid_argument', `Unknown catalog provider: ${String(provider)}`);
    return m;
  }

  function nodeName(hostId: string): string {
    return nodes.get(hostId)?.name ?? hostId;
  }

  /** What a node failure means for the person. */
  function failure(hostId: string, err: unknown): GatewayError {
    if (err instanceof GatewayError) return err;
    const name = nodeName(hostId);
    if (err instanceof NodeRequestError)
      return new GatewayError(
        err.code === 'not_found' ? 'not_found' : 'unavailable',
        `${name}: ${err.message}`,
      );
    if (err instanceof NodeOfflineError)
      return new GatewayError('unavailable', `The node "${name}" is offline: ${err.message}`);
    return new GatewayError('internal', `${name}: ${err instanceof Error ? err.message : String(err)}`);
  }

  async function listNode(hostId: string): Promise<CatalogEntry[]> {
    const conn = await nodes.connection(hostId);
    const r = await ask<{ entries?: unknown }>(hostId, conn, 'list', {}, d.requestTimeoutMs);
    const raw = Array.isArray(r?.entries) ? r.entries : [];
    const info = nodes.get(hostId);
    const out: CatalogEntry[] = [];
    for (const v of raw) {
      const e = wireEntry(v, d.modules);
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
  async function list(): Promise<CatalogEntry[]> {
    const online = nodes.list().filter((n) => nodes.online(n.id));
    const lists = await Promise.all(
      online.map((n) =>
        listNode(n.id).catch((err: unknown) => {
          logger.warn('catalog: cannot list a node', {
            nodeId: n.id,
            error: String((err as Error)?.message ?? err),
          });
          return [];
        }),
      ),
    );
    return lists.flat();
  }

  async function adopt(input: {
    provider: CatalogProvider | string;
    threadId: string;
    hostId: string;
  }): Promise<SessionInfo> {
    const hostId = input.hostId;
    if (!nodes.get(hostId)) throw notFound(`Unknown host: ${hostId}`);
    const m = module(input.provider);
    const threadId = typeof input.threadId === 'string' ? input.threadId.trim() : '';
    if (!threadId) throw new GatewayError('invalid_argument', 'threadId is required');
    checkThreadId(m, threadId);
    try {
      const conn = await nodes.connection(hostId);
      const found = await ask<{ entry?: unknown; ref?: unknown }>(
        hostId,
        conn,
        'find',
        { provider: m.id, threadId },
        d.requestTimeoutMs,
      );
      const entry = wireEntry(found?.entry, d.modules);
      const ref = wireRef(found?.ref);
      if (!entry || !ref || entry.provider !== m.id || entry.threadId !== threadId)
        throw new GatewayError(
          'unavailable',
          `${nodeName(hostId)}: the node answered with a malformed session`,
        );
      const marker = wireMarker(
        await ask(hostId, conn, 'baseline', { provider: m.id, ref }, d.requestTimeoutMs),
      );
      if (!marker)
        throw new GatewayError(
          'unavailable',
          `${nodeName(hostId)}: the node answered with a malformed marker`,
        );
      const key = adoptedKeyFor(m.id, threadId, hostId);
      let transcript: VisibleMessage[] = [];
      if (!d.adopt.sessions.get(key)) {
        try {
          const t = await ask<{ messages?: unknown }>(
            hostId,
            conn,
            'tail',
            { provider: m.id, ref, limit: IMPORT_MESSAGES },
            d.requestTimeoutMs,
          );
          transcript = wireMessages(t?.messages) ?? [];
        } catch (err) {
          logger.warn('catalog: transcript import failed', { sessionKey: key, error: String(err) });
        }
      }
      const a = { key, provider: m, loc: { entry, ref }, marker, transcript };
      return d.adopt.transaction(() => writeAdoption({ ...d.adopt, hostId }, a));
    } catch (err) {
      throw failure(hostId, err);
    }
  }

  async function continueIn(link: Link, text: string): Promise<string> {
    const hostId = link.hostId;
    const name = nodeName(hostId);
    try {
      const conn = await nodes.connection(hostId);
      if (nodes.hello(hostId)?.allowContinue !== true)
        throw new GatewayError(
          'unavailable',
          `Cannot continue this session: the node "${name}" was started without --allow-continue, so it only reads sessions there`,
        );
      const r = await ask<{ stdout?: unknown }>(
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
      return typeof r?.stdout === 'string' ? r.stdout.slice(0, 256 * 1024) : '';
    } catch (err) {
      throw failure(hostId, err);
    }
  }

  const checks: RemoteChecks = {
    isRemote: (hostId) => nodes.isNode(hostId),
    check: createRemoteCheck({ ...d, ask }),
  };
  return { list, adopt, checks, continue: continueIn };
}

export type RemoteCatalog = ReturnType<typeof createRemoteCatalog>;
