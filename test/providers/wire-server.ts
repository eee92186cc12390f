// A real HTTP server on 127.0.0.1 that plays a model API's wire format, so the providers are
// tested through the official SDKs, fetch and sockets exactly as they run against a real endpoint.
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export type WireHandler = (
  req: ReceivedRequest,
  res: ServerResponse,
  raw: IncomingMessage,
) => void | Promise<void>;

export interface WireServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  requests: ReceivedRequest[];
  /** The handler for the next requests. */
  handle(handler: WireHandler): void;
  close(): Promise<void>;
}

export async function startWireServer(): Promise<WireServer> {
  const requests: ReceivedRequest[] = [];
  let handler: WireHandler = (_req, res) => {
    res.writeHead(404).end();
  };
  const server = createServer((raw, res) => {
    const chunks: Buffer[] = [];
    raw.on('data', (c: Buffer) => chunks.push(c));
    raw.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const req: ReceivedRequest = {
        method: raw.method ?? '',
        url: raw.url ?? '',
        headers: raw.headers,
        body: text ? JSON.parse(text) : undefined,
      };
      requests.push(req);
      void handler(req, res, raw);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    handle(h) {
      handler = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function startSse(res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
}

/** Writes complete SSE frames (each already `event:`/`data:` lines) and ends the response. */
export function sendSse(res: ServerResponse, frames: string[]): void {
  startSse(res);
  for (const f of frames) res.write(`${f}\n\n`);
  res.end();
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

// --- OpenAI chat.completion.chunk frames ---------------------------------------------------------

const CHUNK_BASE = {
  id: 'chatcmpl-9x1',
  object: 'chat.completion.chunk',
  created: 1718787945,
  model: 'gpt-4o-mini',
};

export function oaDelta(delta: Record<string, unknown>, finishReason: string | null = null): string {
  return `data: ${JSON.stringify({
    ...CHUNK_BASE,
    system_fingerprint: 'fp_1',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    usage: null,
  })}`;
}

export function oaUsage(prompt: number, completion: number): string {
  return `data: ${JSON.stringify({
    ...CHUNK_BASE,
    choices: [],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  })}`;
}

export const OA_DONE = 'data: [DONE]';

// --- Anthropic Messages stream frames ------------------------------------------------------------

export function anEvent(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}`;
}

export function anMessageStart(inputTokens: number, extra: Record<string, number> = {}): string {
  return anEvent('message_start', {
    message: {
      id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
      type: 'message',
      role: 'assistant',
      content: [],
      model: 'claude-sonnet-4-5',
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: inputTokens, output_tokens: 1, ...extra },
    },
  });
}

export function anTextDelta(index: number, text: string): string {
  return anEvent('content_block_delta', { index, delta: { type: 'text_delta', text } });
}

export function anJsonDelta(index: number, partialJson: string): string {
  return anEvent('content_block_delta', {
    index,
    delta: { type: 'input_json_delta', partial_json: partialJson },
  });
}

export function anMessageDelta(stopReason: string, outputTokens: number): string {
  return anEvent('message_delta', {
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: outputTokens },
  });
}

export const AN_PING = anEvent('ping', {});
export const AN_STOP = anEvent('message_stop', {});

/** Resolves when the client side of the response's connection goes away. */
export function closedBy(res: ServerResponse): Promise<true> {
  return new Promise((resolve) => res.on('close', () => resolve(true)));
}
