// One client of the serve gateway: unauthenticated until its first frame (`hello` with a
// credential, or `redeem` with a one-time invitation), then browser mode's frames answered as
// its account. Its pushes go through a bounded queue: when the socket's unsent bytes pass
// MAX_QUEUE_BYTES the client is disconnected with a reason, so a slow reader never holds memory
// or time that others need (each socket writes on its own; nothing waits for the slowest).
// The answers a client asked for do not count against that bound while they are being written
// (the fleet of a 20,000-session gateway is a 5.5 MB answer: pushes arriving behind it are not a
// sign of a slow reader), but they have a bound of their own, MAX_ANSWER_BYTES.
import type { WebSocket } from 'ws';
import {
  ACCOUNT_CHANNELS,
  SERVE_CLOSE,
  type AccountChannel,
  type ServeServerFrame,
} from '../../shared/ipc/accounts';
import type { Envelope } from '../../shared/ipc/contract';
import type { PushBatch } from '../../shared/ipc/types';
import type { Account } from './accounts';

export const MAX_QUEUE_BYTES = 4 * 1024 * 1024;
/** Unsent answers beyond this: the client asks without reading (the client's own frame limit). */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;
export const HELLO_TIMEOUT_MS = 10_000;
export const KICK_GRACE_MS = 5_000;

export interface ConnectionHost {
  authenticate(credential: unknown): Account | undefined;
  redeem(code: unknown, name: unknown): { account: Account; credential: string } | undefined;
  /** Starts pushes for this client; returns the stop function. */
  subscribe(account: Account, push: (batch: PushBatch) => void): () => void;
  dispatch(account: Account, channel: unknown, args: unknown): Promise<Envelope<unknown>>;
  accountCall(account: Account, channel: AccountChannel, args: unknown): Promise<Envelope<unknown>>;
  opened(c: Connection): void;
  closed(c: Connection): void;
}

export interface Connection {
  account(): Account | undefined;
  /** Disconnects with a WebSocket close code and reason, at once. */
  kick(close: { code: number; reason: string }): void;
}

export function serveConnection(
  ws: WebSocket,
  host: ConnectionHost,
  maxQueueBytes = MAX_QUEUE_BYTES,
): Connection {
  let account: Account | undefined;
  let stop: (() => void) | undefined;
  const kick = (close: { code: number; reason: string }) => {
    if (ws.readyState !== ws.OPEN) return;
    ws.close(close.code, close.reason);
    host.closed(conn);
    // The close frame waits behind what is queued: the client gets a few seconds to read up to
    // its reason, then it is cut (nothing more is queued for it meanwhile).
    setTimeout(() => ws.terminate(), KICK_GRACE_MS).unref();
    stop?.();
    stop = undefined;
  };
  const out = boundedSender(ws, maxQueueBytes, () => kick(SERVE_CLOSE.slow));
  const conn: Connection = { account: () => account, kick };
  const helloTimer = setTimeout(() => kick(SERVE_CLOSE.helloTimeout), HELLO_TIMEOUT_MS);
  helloTimer.unref();

  const welcome = (a: Account) => {
    clearTimeout(helloTimer);
    account = a;
    stop = host.subscribe(a, (batch) => out({ type: 'push', batch }));
    host.opened(conn);
  };

  const first = (frame: Record<string, unknown>) => {
    if (frame.type === 'hello') {
      const a = host.authenticate(frame.credential);
      if (!a) return kick(SERVE_CLOSE.unauthorized);
      out({ type: 'welcome', account: a });
      return welcome(a);
    }
    if (frame.type === 'redeem') {
      const r = host.redeem(frame.code, frame.name);
      if (!r)
        return kick({ code: SERVE_CLOSE.unauthorized.code, reason: 'unknown, used or expired invitation' });
      out({ type: 'redeemed', account: r.account, credential: r.credential });
      return welcome(r.account);
    }
    kick(SERVE_CLOSE.unauthorized);
  };

  const request = (a: Account, frame: Record<string, unknown>) => {
    const id = frame.id;
    if (!Number.isSafeInteger(id)) return kick({ code: 1007, reason: 'invalid request' });
    const channel = frame.channel;
    const call = (ACCOUNT_CHANNELS as readonly unknown[]).includes(channel)
      ? host.accountCall(a, channel as AccountChannel, frame.args)
      : host.dispatch(a, channel, frame.args);
    call
      .catch((): Envelope<unknown> => ({ ok: false, error: { code: 'internal', message: 'internal error' } }))
      .then((result) => out({ type: 'result', id: id as number, result }))
      .catch(() => kick({ code: 1011, reason: 'internal error' }));
  };

  ws.on('message', (data, isBinary) => {
    if (isBinary) return kick({ code: 1003, reason: 'text frames only' });
    const frame = parseFrame(data.toString());
    if (!frame) return kick({ code: 1007, reason: 'invalid frame' });
    if (!account) return first(frame);
    request(account, frame);
  });
  const done = () => {
    clearTimeout(helloTimer);
    stop?.();
    stop = undefined;
    host.closed(conn);
  };
  ws.on('close', done);
  ws.on('error', done);
  return conn;
}

/** Sends frames to one client, calling `tooSlow` instead when its queues are past their bounds. */
function boundedSender(ws: WebSocket, maxQueueBytes: number, tooSlow: () => void) {
  /** Bytes of answers queued and not yet written out. */
  let answering = 0;
  return (frame: ServeServerFrame) => {
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount - answering > maxQueueBytes || answering > MAX_ANSWER_BYTES) return tooSlow();
    const text = JSON.stringify(frame);
    if (frame.type !== 'result') return ws.send(text);
    const bytes = Buffer.byteLength(text);
    answering += bytes;
    ws.send(text, () => (answering -= bytes));
  };
}

function parseFrame(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
