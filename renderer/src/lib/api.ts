// The only module that touches the transport: Electron's preload (`window.sightline`) when
// present, otherwise a WebSocket to browser mode with the token the page was opened with.
import type {
  ArgsOf,
  Channel,
  Envelope,
  ErrorCode,
  PushBatch,
  PushListener,
  ResultOf,
  SightlineApi,
  WireMessage,
} from '../../../shared/ipc';

declare global {
  interface Window {
    sightline?: SightlineApi;
  }
}

export class ApiCallError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ApiCallError';
  }
}

const REFUSED_AFTER = 3;

type Pending = { resolve: (e: Envelope<unknown>) => void };

/** WebSocket client for browser mode: requests wait for the socket, reconnects with backoff. */
function createWebSocketApi(url: string, onReconnect: () => void): SightlineApi {
  const listeners = new Set<PushListener>();
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let ws: WebSocket | undefined;
  let open = false;
  let queue: string[] = [];
  let attempts = 0;
  let everOpened = false;

  const connect = () => {
    ws = new WebSocket(url);
    ws.onopen = () => {
      open = true;
      attempts = 0;
      for (const frame of queue) ws?.send(frame);
      queue = [];
      if (everOpened) onReconnect();
      everOpened = true;
    };
    ws.onmessage = (ev) => {
      const msg = JSON.parse(String(ev.data)) as WireMessage;
      if (msg.type === 'result') {
        pending.get(msg.id)?.resolve(msg.result);
        pending.delete(msg.id);
      } else if (msg.type === 'push') {
        for (const l of listeners) l(msg.batch);
      }
    };
    ws.onclose = () => {
      open = false;
      for (const p of pending.values()) {
        p.resolve({ ok: false, error: { code: 'unavailable', message: 'Connection to Sightline lost' } });
      }
      pending.clear();
      attempts++;
      // The server refuses a wrong token at the upgrade, which a page cannot tell from a server
      // that is down: a page that never connected after a few tries says what to do.
      if (!everOpened && attempts === REFUSED_AFTER) reportLink('refused');
      setTimeout(connect, Math.min(5000, 250 * 2 ** Math.min(attempts, 5)));
    };
  };
  connect();

  return {
    invoke<C extends Channel>(channel: C, args: ArgsOf<C>) {
      const id = nextId++;
      const frame = JSON.stringify({ id, channel, args });
      return new Promise<Envelope<ResultOf<C>>>((resolve) => {
        pending.set(id, { resolve: resolve as (e: Envelope<unknown>) => void });
        if (open && ws) ws.send(frame);
        else queue.push(frame);
      });
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

const TOKEN_KEY = 'sightline.token';

/**
 * Browser mode's per-launch token. The printed URL carries it in the fragment (#token=…), which
 * the browser never sends over HTTP; it moves into this tab's sessionStorage (scoped by origin,
 * so by port: no other server on 127.0.0.1 sees it, as it would a cookie) and out of the address
 * bar. A reload finds it there; only the WebSocket upgrade ever carries it.
 *
 * The move waits until the page is idle (or keepToken is called): a tab's first use of
 * sessionStorage and replacing the history entry cost the start-up 5–20 ms before the socket
 * opened (issue 31.4). Until then the token is still in the address bar, so a reload finds it.
 */
function browserModeToken(): string {
  const fromFragment = new URLSearchParams(window.location.hash.slice(1)).get('token');
  if (!fromFragment) return window.sessionStorage.getItem(TOKEN_KEY) ?? '';
  unkeptToken = fromFragment;
  if ('requestIdleCallback' in window) window.requestIdleCallback(keepToken, { timeout: 1000 });
  else setTimeout(keepToken, 500);
  return fromFragment;
}

let unkeptToken: string | undefined;

/**
 * Moves a token still in the address bar into sessionStorage and out of the address bar. Whatever
 * rewrites the address bar calls this first, so the token is never only in a replaced entry.
 */
export function keepToken(): void {
  const token = unkeptToken;
  if (token === undefined) return;
  unkeptToken = undefined;
  window.sessionStorage.setItem(TOKEN_KEY, token);
  const params = new URLSearchParams(window.location.hash.slice(1));
  if (!params.has('token')) return;
  params.delete('token');
  const rest = params.toString();
  window.history.replaceState(
    null,
    '',
    window.location.pathname + window.location.search + (rest ? `#${rest}` : ''),
  );
}

/** Browser mode without a token, or refused on every try before ever connecting. */
export type LinkProblem = 'no-token' | 'refused';
let linkProblem: LinkProblem | undefined;
const linkListeners = new Set<(p: LinkProblem) => void>();
function reportLink(p: LinkProblem): void {
  linkProblem = p;
  for (const l of linkListeners) l(p);
}
export function onLinkProblem(listener: (p: LinkProblem) => void): () => void {
  if (linkProblem) listener(linkProblem);
  linkListeners.add(listener);
  return () => linkListeners.delete(listener);
}

let transport: SightlineApi | undefined;
const reconnectListeners = new Set<() => void>();

function api(): SightlineApi {
  if (transport) return transport;
  if (window.sightline) {
    transport = window.sightline;
  } else {
    const token = browserModeToken();
    if (!token) reportLink('no-token');
    const proto = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
    const url = `${proto}//${window.location.host}/ws?token=${encodeURIComponent(token)}`;
    transport = createWebSocketApi(url, () => reconnectListeners.forEach((l) => l()));
  }
  return transport;
}

/** Calls a channel and unwraps the envelope; failures throw an ApiCallError. */
export async function call<C extends Channel>(channel: C, args: ArgsOf<C>): Promise<ResultOf<C>> {
  const env = await api().invoke(channel, args);
  if (env.ok) return env.value;
  throw new ApiCallError(env.error.code, env.error.message);
}

export function subscribe(listener: (batch: PushBatch) => void): () => void {
  return api().subscribe(listener);
}

/**
 * Pushes that arrive before the app subscribes. The fleet is asked for at boot (boot.ts), before
 * the app's code has run; a change the gateway pushes between that answer and the app's
 * subscription would otherwise be lost. Bounded: past HELD_MAX batches the held ones are dropped
 * and the app re-reads everything instead.
 */
const HELD_MAX = 1000;
interface Held {
  batches: PushBatch[];
  overflowed: boolean;
  off: () => void;
}
let held: Held | undefined;

export function holdPushes(): void {
  if (held) return;
  const h: Held = { batches: [], overflowed: false, off: () => {} };
  h.off = subscribe((batch) => {
    if (h.batches.length < HELD_MAX) h.batches.push(batch);
    else h.overflowed = true;
  });
  held = h;
}

/** The held batches, oldest first, and whether some were dropped; holding stops here. */
export function releaseHeldPushes(): { batches: PushBatch[]; overflowed: boolean } {
  const h = held;
  held = undefined;
  if (!h) return { batches: [], overflowed: false };
  h.off();
  return { batches: h.overflowed ? [] : h.batches, overflowed: h.overflowed };
}

/** Browser mode only: called after the WebSocket came back, so stores can re-read state. */
export function onReconnect(listener: () => void): () => void {
  reconnectListeners.add(listener);
  return () => reconnectListeners.delete(listener);
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
