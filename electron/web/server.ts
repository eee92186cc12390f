// Browser mode: the renderer and the IPC contract over HTTP + WebSocket on 127.0.0.1 only.
// The page and its assets are the public renderer build, served to any request for our own Host.
// The contract needs the random per-launch token, which stays with the page: the printed URL
// carries it in the fragment (never sent over HTTP), the page keeps it in sessionStorage (scoped
// by origin, so by port, unlike a cookie) and sends it only in the WebSocket upgrade, whose Origin
// must be the server's own. Frames above 1 MiB are refused.
import crypto from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Envelope, WireMessage, WireRequest } from '../../shared/ipc/contract';
import type { AppInfo, PushBatch } from '../../shared/ipc/types';
import type { DismissalStore } from '../gateway/person/dismissals';
import type { GatewayApi } from '../gateway/api/gateway-api';
import { createApiHandlers, type ApiOptions } from '../gateway/api/handlers';
import { createPushBridge } from '../gateway/api/push-bridge';
import {
  DEFAULT_CONNECTION_LIMITS,
  SERVER_OPTIONS,
  guardConnections,
  type ConnectionGuard,
  type ConnectionLimits,
} from '../gateway/connection-guard';
import { readRendererFile } from './renderer-files';

export const HOST = '127.0.0.1';
export const MAX_PAYLOAD = 1024 * 1024;

/** A gateway elsewhere (`npm run web -- --connect`): requests and pushes relayed to it. */
export interface RemoteBackend {
  invoke(channel: unknown, args: unknown): Promise<Envelope<unknown>>;
  subscribe(listener: (batch: PushBatch) => void): () => void;
}

export interface WebServerOptions {
  /** The local gateway, or `remote` (exactly one). */
  gateway?: GatewayApi;
  remote?: RemoteBackend;
  rendererDir: string;
  port?: number;
  /** Only 127.0.0.1 is accepted; anything else is refused. */
  host?: string;
  token?: string;
  dismissals?: DismissalStore;
  app?: Partial<AppInfo>;
  /** The app's gateway host, for database:status and database:restore (cli.ts passes it). */
  database?: ApiOptions['database'];
  /** Connection caps and timeouts (issue 29.5); tests pass small ones. */
  limits?: ConnectionLimits;
}

export interface WebServer {
  url: string;
  port: number;
  token: string;
  /** After a restore swapped the gateway: answer and push from `next`; connections stay open. */
  useGateway(next: GatewayApi, dismissals?: DismissalStore): void;
  /** Connections open now (pages, WebSockets, anything half-open): for tests and the log. */
  connections(): number;
  close(): Promise<void>;
}

export function newToken(): string {
  return crypto.randomBytes(24).toString('base64url');
}

export function contentSecurityPolicy(port: number): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ws://${HOST}:${port}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}

function sameToken(given: string | null | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

/** Longest request target we parse; Node's header limit already caps the whole head at 16 KiB. */
const MAX_TARGET = 8 * 1024;

/**
 * The request target as a URL on our origin, or undefined for anything but an origin-form path
 * ("/…"): `*`, absolute and scheme-relative targets (`//[`) are refused before any parser sees
 * them, and a parser that still throws is caught here.
 */
export function parseTarget(raw: string | undefined, base: string): URL | undefined {
  if (!raw || raw[0] !== '/' || raw[1] === '/' || raw[1] === '\\' || raw.length > MAX_TARGET)
    return undefined;
  try {
    return new URL(base + raw);
  } catch {
    return undefined;
  }
}

/** A WebSocket request frame, or undefined when it is not JSON with a safe integer id. */
export function parseRequest(text: string): { id: number; channel: unknown; args: unknown } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { id, channel, args } = value as Partial<WireRequest> & { channel?: unknown };
  return Number.isSafeInteger(id) ? { id: id as number, channel, args } : undefined;
}

function refuseUpgrade(socket: Duplex, status: 400 | 401 | 403 | 404, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** What the server's parts share: its port once listening, its token and where requests go. */
interface Served {
  port: number;
  token: string;
  rendererDir: string;
  dispatch(channel: unknown, args: unknown): Promise<Envelope<unknown>>;
  /** Subscribes one WebSocket's pushes to the gateway served now. */
  listen(push: (batch: PushBatch) => void): { close(): void };
  /** Each open WebSocket's push bridge, re-subscribed when the gateway is swapped. */
  bridges: Set<{ rebind(): void }>;
}

const originOf = (s: Served) => `http://${HOST}:${s.port}`;
const hostOk = (s: Served, h: string | undefined) => h === `${HOST}:${s.port}`;

/** Plain HTTP: the renderer's files, for GET and HEAD on our own Host. */
function serveFiles(s: Served): http.RequestListener {
  return (req, res) => {
    void (async () => {
      const url = parseTarget(req.url, originOf(s));
      if (!url) return send(res, 400, 'Bad Request', SECURITY_HEADERS);
      if (!hostOk(s, req.headers.host)) return send(res, 403, 'Forbidden', SECURITY_HEADERS);
      if (req.method !== 'GET' && req.method !== 'HEAD')
        return send(res, 405, 'Method Not Allowed', SECURITY_HEADERS);
      const isPage = url.pathname === '/' || url.pathname === '/index.html';
      const file = await readRendererFile(s.rendererDir, url.pathname, req.method);
      if (file.status !== 200) return send(res, 404, 'Not Found', SECURITY_HEADERS);
      res.writeHead(200, {
        ...SECURITY_HEADERS,
        ...file.headers,
        'Content-Length': file.body.length,
        'Cache-Control': 'no-store',
        ...(isPage ? { 'Content-Security-Policy': contentSecurityPolicy(s.port) } : {}),
      });
      res.end(file.body);
    })().catch(() => send(res, 500, 'Internal Server Error', SECURITY_HEADERS));
  };
}

/** The WebSocket upgrade: only `/ws` with the token, from our own origin and Host. */
function acceptUpgrades(s: Served, guard: ConnectionGuard, wss: WebSocketServer) {
  return (req: http.IncomingMessage, socket: Duplex, head: Buffer): void => {
    // Node removes its own error listener from an upgraded socket: without this one, a client
    // that resets the connection while we answer would crash the process.
    socket.on('error', () => socket.destroy());
    try {
      const url = parseTarget(req.url, originOf(s));
      if (!url) return refuseUpgrade(socket, 400, 'Bad Request');
      if (url.pathname !== '/ws') return refuseUpgrade(socket, 404, 'Not Found');
      if (!sameToken(url.searchParams.get('token'), s.token))
        return refuseUpgrade(socket, 401, 'Unauthorized');
      if (req.headers.origin !== originOf(s) || !hostOk(s, req.headers.host))
        return refuseUpgrade(socket, 403, 'Forbidden');
      guard.trust(socket);
      // ws answers a broken handshake (key, version, subprotocols) with 400 itself.
      wss.handleUpgrade(req, socket, head, (ws) => connect(s, ws));
    } catch {
      socket.destroy();
    }
  };
}

/** One open WebSocket: requests answered in envelopes, pushes relayed while it is open. */
function connect(s: Served, ws: WebSocket): void {
  const out = (m: WireMessage) => {
    if (ws.readyState !== ws.OPEN) return;
    try {
      ws.send(JSON.stringify(m));
    } catch {
      ws.close(1011, 'internal error');
    }
  };
  const push = (batch: PushBatch) => out({ type: 'push', batch });
  let bridge = s.listen(push);
  const binding = {
    rebind() {
      bridge.close();
      bridge = s.listen(push);
    },
  };
  s.bridges.add(binding);
  ws.on('message', (data, isBinary) => {
    if (isBinary) return ws.close(1003, 'text frames only');
    const req = parseRequest(data.toString());
    if (!req) return ws.close(1007, 'invalid request');
    s.dispatch(req.channel, req.args)
      .catch((): Envelope<unknown> => ({
        ok: false,
        error: { code: 'internal', message: 'internal error' },
      }))
      .then((result) => out({ type: 'result', id: req.id, result }))
      .catch(() => ws.close(1011, 'internal error'));
  });
  const done = () => {
    s.bridges.delete(binding);
    bridge.close();
  };
  ws.on('close', done);
  ws.on('error', done);
}

function listening(server: http.Server, port: number): Promise<number> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, HOST, () => resolve());
  }).then(() => {
    const addr = server.address();
    if (!addr || typeof addr === 'string') throw new Error('Browser mode could not read its port');
    return addr.port;
  });
}

export async function startWebServer(opts: WebServerOptions): Promise<WebServer> {
  const host = opts.host ?? HOST;
  if (host !== HOST) throw new Error(`Browser mode binds ${HOST} only (refused: ${host})`);
  const token = opts.token ?? newToken();
  if (token.length < 16) throw new Error('The browser mode token must be at least 16 characters');
  const apiFor = (gw: GatewayApi, dismissals: DismissalStore | undefined) => {
    // In browser mode the person answers consent questions in the page: whoever holds the token
    // is as powerful as the person at the keyboard (README, "Security").
    gw.consent.plug(gw.consent.pagePrompt);
    return createApiHandlers(gw, {
      app: { name: 'Sightline', version: '0.0.0', mode: 'web', dataDir: '', ...opts.app },
      ...(dismissals ? { dismissals } : {}),
      ...(opts.database ? { database: opts.database } : {}),
    });
  };
  if (!opts.gateway === !opts.remote) throw new Error('Browser mode serves one gateway: local or remote');
  let gateway = opts.gateway;
  let api = gateway ? apiFor(gateway, opts.dismissals) : undefined;
  const remote = opts.remote;
  const s: Served = {
    port: 0,
    token,
    rendererDir: opts.rendererDir,
    dispatch: (channel, args) => (remote ? remote.invoke(channel, args) : api!.dispatch(channel, args)),
    listen: (push) => (remote ? { close: remote.subscribe(push) } : createPushBridge(gateway!.events, push)),
    bridges: new Set(),
  };
  const server = http.createServer(SERVER_OPTIONS, serveFiles(s));
  // A local flood cannot shut the page or the open WebSockets out (connection-guard.ts).
  const guard = guardConnections(server, opts.limits ?? DEFAULT_CONNECTION_LIMITS);
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD });
  server.on('upgrade', acceptUpgrades(s, guard, wss));
  s.port = await listening(server, opts.port ?? 0);

  return {
    url: `${originOf(s)}/#token=${token}`,
    port: s.port,
    token,
    useGateway(next, dismissals) {
      gateway = next;
      api = apiFor(next, dismissals);
      for (const b of s.bridges) b.rebind();
    },
    connections: guard.count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(res: http.ServerResponse, status: number, text: string, headers: Record<string, string>): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text);
}
