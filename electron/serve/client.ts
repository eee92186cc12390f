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
  const pending = new Map<number, (r: Envelope<unknown>) => void>();
  const waiting: (() => void)[] = [];
  let nextId = 1;
  let ws: WebSocket | undefined;
  let signedIn = false;
  let ended: string | undefined;
  let delay = 250;
  let settle!: { resolve: (a: AccountView) => void; reject: (e: Error) => void };
  const ready = new Promise<AccountView>((resolve, reject) => (settle = { resolve, reject }));
  ready.catch(() => undefined);

  const end = (reason: string) => {
    if (ended) return;
    ended = reason;
    settle.reject(new Error(reason));
    ws?.terminate();
    for (const r of pending.values()) r({ ok: false, error: { code: 'unavailable', message: reason } });
    pending.clear();
    waiting.splice(0).forEach((w) => w());
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
      waiting.splice(0).forEach((w) => w());
    } else if (frame.type === 'result') {
      pending.get(frame.id)?.(frame.result);
      pending.delete(frame.id);
    } else if (frame.type === 'push') {
      for (const l of listeners) l(frame.batch);
    }
  };

  const open = () => {
    if (ended || !pin) return;
    let peer: TLSSocket | undefined;
    const socket = new WebSocket(opts.url, { rejectUnauthorized: false, maxPayload: 64 * 1024 * 1024 });
    ws = socket;
    socket.on('upgrade', (res) => (peer = res.socket as TLSSocket));
    socket.on('open', () => {
      const raw = peer?.getPeerCertificate(true)?.raw;
      const seen = raw ? `sha256:${crypto.createHash('sha256').update(raw).digest('hex')}` : 'none';
      if (seen !== pin)
        return end(`certificate pin mismatch: the gateway presented ${seen}, expected ${pin}`);
      const first = credential
        ? { type: 'hello', credential }
        : invite
          ? { type: 'redeem', ...invite }
          : undefined;
      if (!first) return end('no credential and no invitation');
      socket.send(JSON.stringify(first));
    });
    socket.on('message', (data) => {
      try {
        onFrame(JSON.parse(data.toString()) as ServeServerFrame);
      } catch {
        socket.terminate();
      }
    });
    socket.on('error', () => undefined); // 'close' follows and decides
    socket.on('close', (code, reason) => {
      signedIn = false;
      for (const r of pending.values())
        r({ ok: false, error: { code: 'unavailable', message: 'disconnected' } });
      pending.clear();
      if (FINAL.has(code)) return end(reason.toString() || 'refused');
      if (ended) return;
      setTimeout(open, delay).unref();
      delay = Math.min(delay * 2, 5000);
    });
  };
  open();

  const whenSignedIn = () =>
    signedIn || ended ? Promise.resolve() : new Promise<void>((r) => waiting.push(r));
  return {
    ready,
    async invoke(channel, args) {
      await whenSignedIn();
      if (ended || !ws)
        return { ok: false, error: { code: 'unavailable', message: ended ?? 'not connected' } };
      const id = nextId++;
      const socket = ws;
      return new Promise<Envelope<unknown>>((resolve) => {
        pending.set(id, resolve);
        socket.send(JSON.stringify({ id, channel, args }));
      });
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () => end('closed'),
  };
}
