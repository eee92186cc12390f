// The catalog over paired nodes (issue 19.3-19.6): remote sessions in the list, adopting one,
// the monitor's check of a node's links, and "continue" run on the node. The node runs the same
// provider code as the local catalog and answers probes since a marker; the gateway keeps the
// links, markers, streaks, dedupe and events, exactly as for local links (monitor.apply).
//
// A node that is unreachable, slow or refusing is not a missing source: its links' checks are
// inconclusive (the streak does not move) and it shows offline; when it is back, each link
// resumes from its marker. Each node is checked on its own, bounded like a provider (45 s).
import { adoptedKeyFor } from '../../../shared/session-keys';
import { GatewayError, notFound } from '../errors';
import { NodeOfflineError, NodeRequestError, type NodeConnection } from '../nodes/connection';
import type { NodesService } from '../nodes/service';
import type { CatalogEntry, CatalogProvider, Logger, SessionInfo } from '../types';
import { IMPORT_MESSAGES, writeAdoption, type AdoptDeps } from './adopt';
import { checkThreadId } from './thread-ids';
import { textKey } from './kit/text';
import type { Link, LinkRepo } from './links';
import { rotate, type ApplyOutcome, type RemoteChecks } from './monitor';
import type { MarkerFields, ProviderModule, VisibleMessage } from './provider';
import { wireEntry, wireMarker, wireMessages, wireOutcome, wireRef } from './remote-wire';

/** Links per probe request (a node answers fewer when its answer would pass its cap). */
export const PROBE_CHUNK = 500;
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

function remaining(deadline: number): number {
  return deadline - performance.now();
}

export function createRemoteCatalog(d: RemoteDeps) {
  const { nodes, links, logger } = d;
  const resumeAt = new Map<string, string>();

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

  const markerOf = (l: Link): MarkerFields => ({
    offset: l.offset,
    inode: l.inode,
    markerJson: l.markerJson,
    scanState: l.scanState,
  });

  /** One node's share of a monitor check: its links in chunks, bounded by the budget. */
  async function check(
    hostId: string,
    all: Link[],
    apply: ApplyOutcome,
    cancelled: () => boolean,
  ): Promise<void> {
    const deadline = performance.now() + d.budgetMs;
    let conn: NodeConnection;
    try {
      conn = await Promise.race([
        nodes.connection(hostId),
        new Promise<never>((_, reject) =>
          setTimeout(
            () => reject(new NodeOfflineError('no connection within the budget')),
            d.budgetMs,
          ).unref(),
        ),
      ]);
    } catch (err) {
      // Inconclusive for every link: markers and streaks stay as they are.
      logger.warn('catalog: node offline; its links wait for it', {
        nodeId: hostId,
        links: all.length,
        error: String((err as Error)?.message ?? err),
      });
      return;
    }
    const list = rotate(all, resumeAt.get(hostId));
    resumeAt.delete(hostId);
    const own = links.ownTextsOf(list.map((l) => l.sessionKey));
    let i = 0;
    while (i < list.length) {
      if (cancelled()) return;
      const left = remaining(deadline);
      if (i > 0 && left <= 0) {
        resumeAt.set(hostId, list[i]!.sessionKey);
        logger.warn('catalog: node check over budget; the rest waits for the next check', {
          nodeId: hostId,
          left: list.length - i,
        });
        break;
      }
      const chunk = list.slice(i, i + PROBE_CHUNK);
      let results: unknown[];
      try {
        const r = await ask<{ results?: unknown }>(
          hostId,
          conn,
          'probe',
          {
            now: d.now(),
            ...(d.visible ? { visible: true } : {}),
            items: chunk.map((l) => ({
              provider: l.provider,
              ref: l.ref,
              marker: markerOf(l),
              own: (own.get(l.sessionKey) ?? []).map(textKey),
            })),
          },
          Math.max(1, Math.min(d.requestTimeoutMs, left > 0 ? left : d.requestTimeoutMs)),
        );
        results = Array.isArray(r?.results) ? r.results.slice(0, chunk.length) : [];
      } catch (err) {
        logger.warn('catalog: node check inconclusive', {
          nodeId: hostId,
          links: list.length - i,
          error: String((err as Error)?.message ?? err),
        });
        return;
      }
      if (results.length === 0) {
        logger.warn('catalog: node answered no outcome; its links wait', { nodeId: hostId });
        return;
      }
      if (cancelled()) return;
      results.forEach((r, k) => {
        try {
          apply(chunk[k]!, wireOutcome(r, markerOf(chunk[k]!)));
        } catch (err) {
          logger.error('catalog: upstream check failed', {
            sessionKey: chunk[k]!.sessionKey,
            error: String(err),
          });
        }
      });
      i += results.length;
    }
    nodes.checked(hostId);
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

  const checks: RemoteChecks = { isRemote: (hostId) => nodes.isNode(hostId), check };
  return { list, adopt, checks, continue: continueIn };
}

export type RemoteCatalog = ReturnType<typeof createRemoteCatalog>;
