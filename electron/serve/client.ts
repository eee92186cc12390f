// A client of a serve gateway (browser mode's --connect, scripts, tests, the benchmark). It pins
// the server's certificate: the fingerprint is compared once the TLS handshake is done and
// before any secret is sent (the credential travels in the first frame, never in the upgrade),
// so a gateway with another certificate learns nothing and is refused. A dropped connection is
// retried with backoff (0.25 s doubling to 5 s) until close(); a refused credential, a revoked
// one or a wrong pin ends the client for good, with the reason.
import crypto from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import WebSocket from 'ws';
import { SERVE_CLOSE, type AccountView, type ServeServerFrame } from '../../shared/ipc/accounts';
import type { Envelope } from '../../shared/ipc/contract';
import type { PushBatch } from '../../shared/ipc/types';
import { normalizePin } from './tls';

export interface ServeClientOptions {
  url: string;
  /** `sha256:<hex>` as the gateway printed it. */
  pin: string;
  credential?: string;
  invite?: { code: string; name: string };
  /** Called with the new credential after an invitation was redeemed (store it; shown once). */
  onCredential?: (credential: string, account: AccountView) => void;
  /** Called after every (re)connection; stores re-read state there. */
  onConnect?: (account: AccountView) => void;
  /** Called once when the client stops for good (wrong pin, refused, revoked, closed). */
  onEnd?: (reason: string) => void;
}

export interface ServeClient {
  /** Resolves once connected and signed in; rejects with the reason it cannot be. */
  ready: Promise<AccountView>;
  invoke(channel: string, args?: unknown): Promise<Envelope<unknown>>;
  subscribe(listener: (batch: PushBatch) => void): () => void;
  close(): void;
}

const FINAL = new Set<number>([SERVE_CLOSE.unauthorized.code, SERVE_CLOSE.revoked.code]);

export function connectServe(opts: ServeClientOptions): ServeClient {
  const pin = normalizePin(opts.pin);
  let credential = opts.credential;
  let invite = opts.invite;
  const listeners = new Set<(b: PushBatch) => void>();
  const calls = createCalls();
  let ws: WebSocket | undefined;
  let signedIn = false;
  let ended: string | undefined;
  let delay = 250;
  const { promise: ready, ...settle } = deferred<AccountView>();

  const end = (reason: string) => {
    if (ended) return;
    ended = reason;
    settle.reject(new Error(reason));
    ws?.terminate();
    calls.stop(reason);
    opts.onEnd?.(reason);
  };
  if (!pin) queueMicrotask(() => end('the pin must be sha256:<64 hex digits>'));

  const onFrame = (frame: ServeServerFrame) => {
    if (frame.type === 'welcome' || frame.type === 'redeemed') {
      if (frame.type === 'redeemed') {
        credential = frame.credential;
        invite = undefined;
        opts.onCredential?.(frame.credential, frame.account);
      }
      signedIn = true;
      delay = 250;
      settle.resolve(frame.account);
      opts.onConnect?.(frame.account);
      calls.release();
    } else if (frame.type === 'result') {
      calls.answer(frame.id, frame.result);
    } else if (frame.type === 'push') {
      for (const l of listeners) l(frame.batch);
    }
  };

  const open = () => {
    if (ended || !pin) return;
    const socket = openPinned(opts.url, pin, {
      mismatch: (seen) => end(`certificate pin mismatch: the gateway presented ${seen}, expected ${pin}`),
      trusted: () => {
        const first = signInFrame(credential, invite);
        return first ? socket.send(first) : end('no credential and no invitation');
      },
      frame: onFrame,
    });
    ws = socket;
    socket.on('close', (code, reason) => {
      signedIn = false;
      calls.failAll('disconnected');
      if (FINAL.has(code)) return end(reason.toString() || 'refused');
      if (ended) return;
      setTimeout(open, delay).unref();
      delay = Math.min(delay * 2, 5000);
    });
  };
  open();

  return {
    ready,
    async invoke(channel, args) {
      if (!signedIn && !ended) await calls.signedIn();
      if (ended || !ws)
        return { ok: false, error: { code: 'unavailable', message: ended ?? 'not connected' } };
      return calls.send(ws, channel, args);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () => end('closed'),
  };
}

/**
 * A WebSocket to the gateway whose certificate is compared with the pin once the TLS handshake
 * is done: `trusted` runs only when it matches, before anything is sent. A frame that is not
 * JSON drops the connection ('close' follows, as for any error, and decides what next).
 */
function openPinned(
  url: string,
  pin: string,
  on: { trusted: () => void; mismatch: (seen: string) => void; frame: (f: ServeServerFrame) => void },
): WebSocket {
  let peer: TLSSocket | undefined;
  const socket = new WebSocket(url, { rejectUnauthorized: false, maxPayload: 64 * 1024 * 1024 });
  socket.on('upgrade', (res) => (peer = res.socket as TLSSocket));
  socket.on('open', () => {
    const raw = peer?.getPeerCertificate(true)?.raw;
    const seen = raw ? `sha256:${crypto.createHash('sha256').update(raw).digest('hex')}` : 'none';
    if (seen !== pin) return on.mismatch(seen);
    on.trusted();
  });
  socket.on('message', (data) => {
    try {
      on.frame(JSON.parse(data.toString()) as ServeServerFrame);
    } catch {
      socket.terminate();
    }
  });
  socket.on('error', () => undefined);
  return socket;
}

/** The first frame, which signs in: with the credential, else with the invitation. */
function signInFrame(credential: string | undefined, invite: ServeClientOptions['invite']) {
  if (credential) return JSON.stringify({ type: 'hello', credential });
  return invite ? JSON.stringify({ type: 'redeem', ...invite }) : undefined;
}

/** A promise with its settle functions (a rejection nobody awaits is not an unhandled one). */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/** The requests in flight (answered by id) and the calls waiting for a sign-in. */
function createCalls() {
  const pending = new Map<number, (r: Envelope<unknown>) => void>();
  const waiting: (() => void)[] = [];
  let nextId = 1;
  /** Every request in flight answered `unavailable` (the link dropped, or the client ended). */
  const failAll = (message: string) => {
    for (const r of pending.values()) r({ ok: false, error: { code: 'unavailable', message } });
    pending.clear();
  };
  /** Lets the waiting calls go (signed in, or ended). */
  const release = () => void waiting.splice(0).forEach((w) => w());
  return {
    send(socket: WebSocket, channel: string, args: unknown): Promise<Envelope<unknown>> {
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        socket.send(JSON.stringify({ id, channel, args }));
      });
    },
    answer(id: number, result: Envelope<unknown>): void {
      pending.get(id)?.(result);
      pending.delete(id);
    },
    failAll,
    release,
    signedIn: () => new Promise<void>((r) => waiting.push(r)),
    /** The client ended: nothing waits any more. */
    stop: (reason: string) => (failAll(reason), release()),
  };
}
