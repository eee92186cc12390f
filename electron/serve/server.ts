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
import { acting, audit } from './people';
import { createQuestionRouting, type QuestionRouting } from './questions';
import { loadTlsIdentity, type TlsIdentity } from './tls';

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
  const questions = createQuestionRouting(accounts);
  const shared = shareGateway(opts, questions);
  const connections = new Set<Connection>();
  /** A revoked person is disconnected at once, on every connection; their waiting requests go to the owners. */
  const kick = (id: string, close: { code: number; reason: string }) => {
    for (const c of connections) if (c.account()?.id === id) c.kick(close);
    questions.handOver(shared.gateway(), id);
  };
  const connectionHost: ConnectionHost = {
    authenticate: (c) => accounts.authenticate(c),
    redeem: (code, name) =>
      typeof code === 'string' && typeof name === 'string' && /^[^\p{Cc}]{1,64}$/u.test(name.trim())
        ? accounts.redeem(code, name.trim())
        : undefined,
    subscribe: shared.subscribe,
    async dispatch(a, channel, args) {
      const result = await questions.dispatch(a, channel, args, () =>
        acting.run(a, () => shared.apiOf(a).dispatch(channel, args)),
      );
      audit(accounts, a, channel, args, result);
      return result;
    },
    accountCall: (a, channel: AccountChannel, args): Promise<Envelope<unknown>> =>
      Promise.resolve(accountCall({ accounts, kick }, a, channel, args)),
    opened: (c) => void connections.add(c),
    closed: (c) => void connections.delete(c),
  };
  const { server, wss } = createTlsServer(tls, connectionHost, opts.maxQueueBytes);
  const closeState = () => (shared.host.close(), accounts.close());
  const port = await listen(server, opts).catch((err: unknown) => {
    closeState();
    throw err;
  });
  const hostPart = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `wss://${hostPart}:${port}/ws`,
    port,
    fingerprint: tls.fingerprint,
    invite: accounts.invite(undefined).code,
    host: shared.host,
    accounts,
    connections: () => connections.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => (closeState(), resolve()));
      }),
  };
}

/**
 * The one gateway all people share (swapped for a fresh one after damage recovery): each
 * person's handlers carry their account as the actor id, each person's pushes what they may see.
 */
function shareGateway(opts: ServeOptions, questions: QuestionRouting) {
  const bridges = new Set<{ rebind(): void }>();
  const apis = new Map<string, ApiHandlers>();
  let gateway: Gateway;
  const bind = (gw: Gateway) => {
    gateway = gw;
    apis.clear();
    questions.bind(gw);
  };
  const host = startGatewayHost(
    { autoStart: true, ...opts.gateway, dataDir: opts.dataDir },
    { onSwap: (next) => (bind(next), bridges.forEach((b) => b.rebind())) },
  );
  bind(host.gateway);
  const app = { name: 'Sightline', version: opts.version ?? '0.0.0', mode: 'web' as const, dataDir: '' };
  return {
    host,
    gateway: () => gateway,
    apiOf(a: Account): ApiHandlers {
      let api = apis.get(a.id);
      if (!api) apis.set(a.id, (api = createApiHandlers(gateway, { app, actorId: a.id })));
      return api;
    },
    subscribe(a: Account, push: Parameters<ConnectionHost['subscribe']>[1]): () => void {
      const events = {
        on: (l: Parameters<Gateway['events']['on']>[0]) =>
          gateway.events.on((e) => {
            const seen = questions.view(a, e);
            if (seen) l(seen);
          }),
      };
      let bridge = createPushBridge(events, push);
      const b = { rebind: () => (bridge.close(), (bridge = createPushBridge(events, push))) };
      bridges.add(b);
      return () => (bridges.delete(b), bridge.close());
    },
  };
}

/** HTTPS answering only the WebSocket upgrade on /ws; TLS 1.2 at least. */
function createTlsServer(tls: TlsIdentity, connectionHost: ConnectionHost, maxQueueBytes?: number) {
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
    wss.handleUpgrade(req, socket, head, (ws) => serveConnection(ws, connectionHost, maxQueueBytes));
  });
  server.on('tlsClientError', (_err, socket) => socket.destroy());
  return { server, wss };
}

/** Listens on the chosen address; the port bound (the one asked for, or the system's for 0). */
async function listen(server: https.Server, opts: { host: string; port: number }): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const addr = server.address();
  return addr && typeof addr === 'object' ? addr.port : opts.port;
}
