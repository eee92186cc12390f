// What every stand-in model server shares: a real HTTP server on 127.0.0.1, a script of replies
// consumed one per model turn, gates that hold a stream open until the test releases them, and a
// record of what the agent sent. Each API file (anthropic.ts, openai-responses.ts, openai-chat.ts,
// gemini.ts) only parses its own request shape into a `Turn` and writes its own wire format.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the agent sent it (body parsed when it is JSON). */
export interface StandInRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** A model turn as the stand-in understood it, whatever the API. */
export interface Turn {
  /** Names of the tools the agent offered the model, exactly as sent. */
  tools: string[];
  /** Text of the last user message (tool results excluded). */
  userText: string;
  /** Text of every tool result in the request, oldest first. */
  toolResults: string[];
  /** Whether the agent asked for a stream. */
  stream: boolean;
  /** The raw request. */
  request: StandInRequest;
}

/**
 * Holds a reply's stream open after its first text until `release()` (or until the client goes
 * away: an agent cancelling its request). `reached` resolves once the agent is inside the held
 * stream; `closedByClient` once the agent dropped the connection.
 */
export interface Gate {
  reached: Promise<void>;
  closedByClient: Promise<void>;
  release(): void;
}

export function gate(): Gate {
  let reach!: () => void;
  let close!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((r) => (reach = r));
  const closedByClient = new Promise<void>((r) => (close = r));
  const released = new Promise<void>((r) => (release = r));
  return Object.assign({ reached, closedByClient, release }, { [GATE]: { reach, close, released } }) as Gate;
}

const GATE = Symbol('gate');
interface GateInside {
  reach(): void;
  close(): void;
  released: Promise<void>;
}
export const inside = (g: Gate): GateInside => (g as unknown as Record<symbol, GateInside>)[GATE]!;

/**
 * One scripted reply: text (optionally held at a gate after its first half), or a call of the
 * offered tool whose name ends with `call` (`session_status` finds `mcp__sightline__session_status`,
 * `sightline__session_status`, `sightline_session_status` …, as each agent names MCP tools). A
 * function decides from the turn. A call of a tool the agent did not offer becomes the text
 * `stand-in: tool <name> not offered (offered: …)`, so a test sees why in the transcript.
 */
export type Step =
  | { text: string; gate?: Gate }
  | ({ paced: true } & Paced)
  | { call: string; input?: Record<string, unknown> }
  | ((turn: Turn) => Step);

/** A text streamed in these pieces, one every `everyMs` (a model writing at its own pace). */
export interface Paced {
  chunks: string[];
  everyMs: number;
}

/** A resolved reply, ready for an API's writer. */
export type Reply =
  | { kind: 'text'; text: string; gate?: Gate; paced?: Paced }
  | { kind: 'call'; id: string; name: string; input: Record<string, unknown> };

export interface StandInOptions {
  /** Replies for the agent's model turns, in order; after the last, `done` text. */
  script?: Step[];
  /**
   * Whether a request is a model turn that consumes the script. By default: one that offers tools
   * (agents' side requests — titles, summaries, topic checks — offer none and get `aside`).
   */
  isTurn?: (turn: Turn) => boolean;
  /** The reply to a side request (default: the text `ok`). */
  aside?: Step;
}

export interface StandIn {
  /** `http://127.0.0.1:<port>` — point the agent's base URL here (each API says where to add /v1). */
  url: string;
  /** Every request the agent made, in order. */
  requests: StandInRequest[];
  /** Every model turn (script-consuming requests), in order. */
  turns: Turn[];
  /** Replace the remaining script (a shared stand-in serves several tests in one file). */
  script(steps: Step[]): void;
  close(): Promise<void>;
}

let ids = 0;
export const nextId = (prefix: string) => `${prefix}${Date.now().toString(36)}${(++ids).toString(36)}`;

function resolveStep(step: Step, turn: Turn): Reply {
  const s = typeof step === 'function' ? step(turn) : step;
  if (typeof s === 'function') return resolveStep(s, turn);
  if ('text' in s) return { kind: 'text', text: s.text, gate: s.gate };
  if ('paced' in s) return { kind: 'text', text: s.chunks.join(''), paced: s };
  const name = turn.tools.find((t) => t === s.call || t.endsWith(`_${s.call}`));
  if (!name)
    return { kind: 'text', text: `stand-in: tool ${s.call} not offered (offered: ${turn.tools.join(', ')})` };
  return { kind: 'call', id: nextId('call_'), name, input: s.input ?? {} };
}

/** Routes of one API: return true when the request was answered. */
export type Route = (
  req: StandInRequest,
  res: ServerResponse,
  reply: (turn: Turn) => Reply,
) => boolean | Promise<boolean>;

export async function serveStandIn(opts: StandInOptions, route: Route): Promise<StandIn> {
  const requests: StandInRequest[] = [];
  const turns: Turn[] = [];
  let steps = [...(opts.script ?? [])];
  const isTurn = opts.isTurn ?? ((t: Turn) => t.tools.length > 0);
  const reply = (turn: Turn): Reply => {
    if (!isTurn(turn)) return resolveStep(opts.aside ?? { text: 'ok' }, turn);
    turns.push(turn);
    const r = resolveStep(steps.shift() ?? { text: 'done' }, turn);
    if (process.env.STANDIN_DEBUG)
      console.log(
        `stand-in turn ${turns.length}: ${turn.userText.slice(0, 30)}…${turn.userText.slice(-40)} → ${JSON.stringify(r).slice(0, 80)}`,
      );
    return r;
  };
  const server = createServer((raw: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    raw.on('data', (c: Buffer) => chunks.push(c));
    raw.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: kept as text
      }
      const req = { method: raw.method ?? '', url: raw.url ?? '', headers: raw.headers, body };
      requests.push(req);
      Promise.resolve(route(req, res, reply))
        .then((answered) => {
          if (!answered)
            sendJson(res, 404, { error: { message: `stand-in: no route ${req.method} ${req.url}` } });
        })
        .catch((err: unknown) => {
          if (!res.headersSent) sendJson(res, 500, { error: { message: String(err) } });
          else res.destroy();
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    turns,
    script(next) {
      steps = [...next];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export function startSse(res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
}

/**
 * Writes a text reply's two halves through `write`, holding at its gate in between. Resolves false
 * when the client went away while held (the stream must not be finished then).
 */
export async function writeHeld(
  res: ServerResponse,
  text: string,
  g: Gate | undefined,
  write: (part: string) => void,
  paced?: Paced,
): Promise<boolean> {
  if (paced) {
    for (const chunk of paced.chunks) {
      if (res.destroyed) return false;
      write(chunk);
      await new Promise((resolve) => setTimeout(resolve, paced.everyMs));
    }
    return !res.destroyed;
  }
  if (!g) {
    write(text);
    return true;
  }
  const half = Math.max(1, Math.floor(text.length / 2));
  write(text.slice(0, half));
  const gi = inside(g);
  const closed = new Promise<false>((resolve) =>
    res.on('close', () => {
      if (!res.writableFinished) {
        gi.close();
        resolve(false);
      }
    }),
  );
  gi.reach();
  const go = await Promise.race([gi.released.then(() => true as const), closed]);
  if (go) write(text.slice(half));
  return go;
}

/** The text of a message content that is a string or a list of parts with `text`. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p: unknown) => {
      if (typeof p === 'string') return p;
      const part = p as { text?: unknown };
      return typeof part.text === 'string' ? part.text : '';
    })
    .join('');
}
