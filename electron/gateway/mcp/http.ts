// The MCP endpoint's HTTP layer: one loopback listener, one path, every request hostile until
// checked. In order: the exact target, our own Host, no Origin (no web page has any business
// here; a browser always sends one), POST only, a bearer secret that names a live credential,
// a JSON body within the size limit that parses. Only then does the MCP layer see it. Nothing a
// client sends can throw past this file; the listener keeps serving.
import http from 'node:http';
import type { Logger } from '../types';
import {
  DEFAULT_CONNECTION_LIMITS,
  guardConnections,
  SERVER_OPTIONS,
  type ConnectionLimits,
} from '../connection-guard';

export const MCP_HOST = '127.0.0.1';
export const MCP_PATH = '/mcp';
/** Largest request body read: a tool call carries at most a 100,000-character message. */
export const MAX_BODY_BYTES = 1024 * 1024;

export interface McpHttpHandlers<C> {
  /** The caller a bearer secret stands for, or undefined (answered 401). */
  authenticate(secret: string): C | undefined;
  /** Answers one authenticated POST whose JSON body parsed. */
  serve(caller: C, req: http.IncomingMessage, res: http.ServerResponse, body: unknown): Promise<void>;
}

export interface McpHttp {
  port: number;
  close(): Promise<void>;
}

function jsonRpcError(res: http.ServerResponse, status: number, message: string, extra = {}): void {
  if (res.headersSent) return void res.end();
  const code = status === 400 ? -32700 : -32000;
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...extra,
  });
  res.end(body);
}

/** The secret of an `Authorization: Bearer <secret>` header, or undefined. */
export function bearerSecret(header: string | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const m = /^Bearer ([A-Za-z0-9_-]{1,200})$/.exec(header.trim());
  return m?.[1];
}

/** Reads the body up to MAX_BODY_BYTES; undefined (and the request dropped) when larger. */
function readBody(req: http.IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        return resolve(undefined);
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function listenMcp<C>(
  handlers: McpHttpHandlers<C>,
  opts: { port: number; logger: Logger; limits?: ConnectionLimits },
): Promise<McpHttp> {
  let port = 0;
  const hostOk = (h: string | undefined) => h === `${MCP_HOST}:${port}` || h === `localhost:${port}`;

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    if (req.url !== MCP_PATH) return jsonRpcError(res, 404, 'Not Found');
    if (!hostOk(req.headers.host)) return jsonRpcError(res, 403, 'Forbidden: Host');
    if (req.headers.origin !== undefined) return jsonRpcError(res, 403, 'Forbidden: Origin');
    // Stateless streamable HTTP: no server-sent stream to open (GET) and no session to end (DELETE).
    if (req.method !== 'POST') return jsonRpcError(res, 405, 'Method Not Allowed', { Allow: 'POST' });
    const secret = bearerSecret(req.headers.authorization);
    const caller = secret === undefined ? undefined : handlers.authenticate(secret);
    if (caller !== undefined) guard.trust(req.socket);
    if (caller === undefined) {
      return jsonRpcError(res, 401, 'Unauthorized: unknown or revoked credential', {
        'WWW-Authenticate': 'Bearer realm="sightline"',
      });
    }
    const type = req.headers['content-type'] ?? '';
    if (!/^application\/json\s*(;|$)/i.test(type))
      return jsonRpcError(res, 415, 'Unsupported Media Type: application/json');
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > MAX_BODY_BYTES)
      return jsonRpcError(res, 413, 'Payload Too Large', { Connection: 'close' });
    const raw = await readBody(req);
    if (raw === undefined) return jsonRpcError(res, 413, 'Payload Too Large', { Connection: 'close' });
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return jsonRpcError(res, 400, 'Parse error: the body is not JSON');
    }
    await handlers.serve(caller, req, res, body);
  };

  const server = http.createServer(SERVER_OPTIONS, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      opts.logger.warn('mcp: request failed', { error: String(err) });
      jsonRpcError(res, 500, 'Internal error');
    });
  });
  // Slow or stalled clients cannot hold the listener: the whole request must arrive in time (the
  // answer may take as long as the tool does), and a flood is cut down, never waited out.
  const guard = guardConnections(server, opts.limits ?? DEFAULT_CONNECTION_LIMITS);
  server.on('clientError', (_err, socket) => {
    if (socket.writable)
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    else socket.destroy();
  });

  port = await bind(server, opts.port);
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Listens on the preferred port, retrying briefly while a previous run lets go of it; when it
 * stays taken, on any free port (the caller records the change).
 */
async function bind(server: http.Server, preferred: number): Promise<number> {
  const attempt = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const onError = (err: Error) => reject(err);
      server.once('error', onError);
      server.listen(port, MCP_HOST, () => {
        server.off('error', onError);
        const addr = server.address();
        if (!addr || typeof addr === 'string') reject(new Error('MCP endpoint: no port'));
        else resolve(addr.port);
      });
    });
  if (preferred > 0) {
    for (let i = 0; i < 4; i++) {
      try {
        return await attempt(preferred);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') break;
        await delay(100);
      }
    }
  }
  return attempt(0);
}
