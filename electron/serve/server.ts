// `npm run serve`: the gateway headless (no Electron, no renderer) for a team, TLS only, on the
// address the person chooses (loopback too). The state is the same gateway as the app's
// (electron/gateway/host.ts, with damage recovery and the start-up sweep after a crash); each
// connected person is an account (accounts.ts), answered through the one typed IPC contract
// (gateway/api/handlers.ts) with their account as the actor id of their turns.
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { AccountChannel } from '../../shared/ipc/accounts';
import type { Envelope } from '../../shared/ipc/contract';
import { createApiHandlers, type ApiHandlers } from '../gateway/api/handlers';
import { createPushBridge } from '../gateway/api/push-bridge';
import { startGatewayHost, type GatewayHost } from '../gateway/host';
import type { Gateway } from '../gateway/index';
import type { GatewayOptions } from '../gateway/types';
import { openAccounts, type Account, type Accounts } from './accounts';
import { accountCall } from './account-channels';
import { serveConnection, type Connection, type ConnectionHost } from './connection';
import { acting, audit, createConsentRouting } from './people';
import { createPermissionRouting } from './permission-routing';
import { loadTlsIdentity } from './tls';

export const MAX_PAYLOAD = 1024 * 1024;

export interface ServeOptions {
  dataDir: string;
  host: string;
  port: number;
  certFile?: string;
  keyFile?: string;
  version?: string;
  /** A client whose unsent pushes pass this is disconnected (default 4 MiB; tests lower it). */
  maxQueueBytes?: number;
  gateway?: Omit<Partial<GatewayOptions>, 'dataDir'>;
}

export interface ServeGateway {
  url: string;
  port: number;
  fingerprint: string;
  /** The one-time invitation printed at start (the owner's while the gateway has none). */
  invite: string;
  host: GatewayHost;
  accounts: Accounts;
  /** Signed-in clients now. */
  connections(): number;
  close(): Promise<void>;
}

export async function startServeGateway(opts: ServeOptions): Promise<ServeGateway> {
  const tls = loadTlsIdentity({ dataDir: opts.dataDir, certFile: opts.certFile, keyFile: opts.keyFile });
  const accounts = openAccounts(opts.dataDir, opts.gateway?.now);
  const routing = createConsentRouting();
  const permissions = createPermissionRouting({
    live: (id) => {
      const a = accounts.get(id);
      return a && a.revokedAt === undefined ? a : undefined;
    },
  });
  const connections = new Set<Connection>();
  const bridges = new Set<{ rebind(): void }>();
  const apis = new Map<string, ApiHandlers>();
  let gateway: Gateway;
  const bind = (gw: Gateway) => {
    gateway = gw;
    apis.clear();
    // First listener: each event is attributed before any client's filter sees it.
    gw.events.on(permissions.observe);
    // Questions wait for an answer from a client; each goes to the person who caused it.
    gw.consent.plug((q) => {
      routing.asked(q.id);
      return gw.consent.pagePrompt(q).finally(() => routing.resolved(q.id));
    });
  };
  const host = startGatewayHost(
    { autoStart: true, ...opts.gateway, dataDir: opts.dataDir },
    { onSwap: (next) => (bind(next), bridges.forEach((b) => b.rebind())) },
  );
  bind(host.gateway);
  const app = { name: 'Sightline', version: opts.version ?? '0.0.0', mode: 'web' as const, dataDir: '' };
  const apiOf = (a: Account) => {
    let api = apis.get(a.id);
    if (!api) apis.set(a.id, (api = createApiHandlers(gateway, { app, actorId: a.id })));
    return api;
  };

  const connectionHost: ConnectionHost = {
    authenticate: (c) => accounts.authenticate(c),
    redeem: (code, name) =>
      typeof code === 'string' && typeof name === 'string' && /^[^\p{Cc}]{1,64}$/u.test(name.trim())
        ? accounts.redeem(code, name.trim())
        : undefined,
    subscribe(a, push) {
      const events = {
        on: (l: Parameters<Gateway['events']['on']>[0]) =>
          gateway.events.on((e) => routing.visible(a, e) && l(permissions.shape(a, e))),
      };
      let bridge = createPushBridge(events, push);
      const b = { rebind: () => (bridge.close(), (bridge = createPushBridge(events, push))) };
      bridges.add(b);
      return () => (bridges.delete(b), bridge.close());
    },
    async dispatch(a, channel, args) {
      const refused = refuse(a, channel, args);
      if (refused) return refused;
      const undo = permissions.before(a, channel, args);
      const result = await acting.run(a, () => apiOf(a).dispatch(channel, args));
      if (result.ok) permissions.after(a, channel, result.value);
      else undo();
      audit(accounts, a, channel, args, result);
      return narrow(a, channel, result);
    },
    accountCall: (a, channel: AccountChannel, args): Promise<Envelope<unknown>> =>
      Promise.resolve(accountCall({ accounts, kick: kickAccount }, a, channel, args)),
    opened: (c) => void connections.add(c),
    closed: (c) => void connections.delete(c),
  };
  /** Questions asked of someone else are not theirs to answer. */
  function refuse(a: Account, channel: unknown, args: unknown): Envelope<unknown> | undefined {
    const requestId = (args as { requestId?: unknown } | undefined)?.requestId;
    const id = typeof requestId === 'string' ? requestId : '';
    const ok =
      channel === 'consent:respond'
        ? routing.mayAnswer(a, id)
        : channel === 'acp:permissions:respond'
          ? permissions.mayAnswer(a, id)
          : true;
    if (ok) return undefined;
    const what = channel === 'consent:respond' ? 'consent question' : 'permission request';
    return { ok: false, error: { code: 'forbidden', message: `this ${what} was asked of someone else` } };
  }
  /** The lists of questions: each person's own consent questions; permission requests with who was asked. */
  function narrow(a: Account, channel: unknown, result: Envelope<unknown>): Envelope<unknown> {
    if (!result.ok) return result;
    if (channel === 'consent:list')
      return { ok: true, value: routing.filter(a, result.value as Parameters<typeof routing.filter>[1]) };
    if (channel === 'acp:permissions:list')
      return {
        ok: true,
        value: permissions.list(a, result.value as Parameters<typeof permissions.list>[1]),
      };
    return result;
  }
  /** A revoked person is disconnected at once, on every connection; their waiting requests go to the owners. */
  function kickAccount(id: string, close: { code: number; reason: string }): void {
    for (const c of connections) if (c.account()?.id === id) c.kick(close);
    const handed = new Set(permissions.askedOfPerson(id));
    for (const request of gateway.acp.permissions.pending())
      if (handed.has(request.id)) gateway.events.emit({ type: 'acp:permission', request });
  }

  const server = https.createServer({ cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2' }, (_req, res) => {
    res
      .writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' })
      .end('Sightline gateway: connect with npm run web -- --connect');
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD });
  server.on('upgrade', (req, socket: Duplex, head) => {
    socket.on('error', () => socket.destroy());
    if (req.url !== '/ws')
      return void socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    wss.handleUpgrade(req, socket, head, (ws) => serveConnection(ws, connectionHost, opts.maxQueueBytes));
  });
  server.on('tlsClientError', (_err, socket) => socket.destroy());
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port, opts.host, () => resolve());
    });
  } catch (err) {
    host.close();
    accounts.close();
    throw err;
  }
  const addr = server.address();
  const port = addr && typeof addr === 'object' ? addr.port : opts.port;
  const hostPart = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `wss://${hostPart}:${port}/ws`,
    port,
    fingerprint: tls.fingerprint,
    invite: accounts.invite(undefined).code,
    host,
    accounts,
    connections: () => connections.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => {
          host.close();
          accounts.close();
          resolve();
        });
      }),
  };
}
