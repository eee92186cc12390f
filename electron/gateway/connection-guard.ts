// Connection limits for the loopback listeners (issue 29.5: the MCP endpoint and browser mode).
// Every local process may connect, so a flood is cut down, never waited out: connections are
// counted per peer (remote address) and in total; past a cap, the oldest connection that has not
// proven a credential (the browser mode token, an MCP secret) is closed to make room, and the new
// one is refused only when every held connection has proven one. Slow requests time out (head,
// whole request, idle keep-alive). So a page load and an agent's next call get through while a
// local process holds thousands of sockets, and no file handles run out.
import type http from 'node:http';
import type net from 'node:net';
import type { Duplex } from 'node:stream';

export interface ConnectionLimits {
  maxTotal: number;
  maxPerPeer: number;
  /** The request head must arrive within this. */
  headersTimeoutMs: number;
  /** The whole request (head and body) must arrive within this (the answer may take longer). */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  maxTotal: 256,
  maxPerPeer: 128,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
};

interface Held {
  socket: net.Socket;
  peer: string;
  trusted: boolean;
  /** A whole request head arrived on it. */
  spoke: boolean;
}

/**
 * Options for http.createServer: Node checks the head and request timeouts on this interval
 * (default 30 s, which would let a slow head hold its socket that long). Settable only there.
 */
export const SERVER_OPTIONS: http.ServerOptions = { connectionsCheckingInterval: 250 };

export interface ConnectionGuard {
  /** `socket` proved a credential: it is never closed to make room. */
  trust(socket: Duplex): void;
  /** Open connections now (for tests and the log). */
  count(): number;
}

export function guardConnections(server: http.Server, limits: ConnectionLimits): ConnectionGuard {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  // Insertion order is age order: the first untrusted entry is the oldest.
  const held = new Map<net.Socket, Held>();
  const evictOldest = (peer?: string): boolean => {
    for (const h of held.values())
      if (!h.trusted && (peer === undefined || h.peer === peer)) {
        held.delete(h.socket);
        h.socket.destroy();
        return true;
      }
    return false;
  };
  server.on('connection', (socket: net.Socket) => {
    const peer = socket.remoteAddress ?? 'unknown';
    let fromPeer = 0;
    for (const h of held.values()) if (h.peer === peer) fromPeer++;
    if (
      (fromPeer >= limits.maxPerPeer && !evictOldest(peer)) ||
      (held.size >= limits.maxTotal && !evictOldest())
    ) {
      socket.destroy();
      return;
    }
    const h: Held = { socket, peer, trusted: false, spoke: false };
    held.set(socket, h);
    // Node's own head timeout is checked lazily; a socket that never finishes a head goes here.
    const deadline = setTimeout(() => {
      if (!h.spoke && !h.trusted) socket.destroy();
    }, limits.headersTimeoutMs);
    deadline.unref();
    socket.once('close', () => {
      clearTimeout(deadline);
      held.delete(socket);
    });
  });
  server.on('request', (req: http.IncomingMessage) => {
    const h = held.get(req.socket);
    if (h) h.spoke = true;
  });

  return {
    trust(socket) {
      const h = held.get(socket as net.Socket);
      if (h) h.trusted = true;
    },
    count: () => held.size,
  };
}
