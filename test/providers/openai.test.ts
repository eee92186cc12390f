import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAIProvider } from '../../electron/gateway/runtime/native/providers/openai';
import { ModelAbortedError, ModelProviderError } from '../../electron/gateway/runtime/native/providers/types';
import type { ModelRequest } from '../../electron/gateway/runtime/native/providers/types';
import type { ServerResponse } from 'node:http';
import {
  OA_DONE,
  closedBy,
  oaDelta,
  oaUsage,
  sendJson,
  sendSse,
  startSse,
  startWireServer,
} from './wire-server';
import type { WireServer } from './wire-server';

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

function provider(apiKey = 'sk-test') {
  return createOpenAIProvider({
    baseUrl: `${server.origin}/v1`,
    apiKey,
    model: 'gpt-4o-mini',
    timeoutMs: 5_000,
  });
}

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    system: 'You are terse.',
    messages: [{ role: 'user', content: 'Say hello' }],
    tools: [],
    signal: new AbortController().signal,
    ...overrides,
  };
}

async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the call to fail');
}

describe('openai provider', () => {
  it('streams reasoning summaries of compatible servers and announces tool calls (live output)', async () => {
    server.handle((_req, res) =>
      sendSse(res, [
        oaDelta({ role: 'assistant', reasoning_content: 'Check ' }),
        oaDelta({ reasoning: 'the file.' }),
        oaDelta({ content: 'Reading.' }),
        oaDelta({
          tool_calls: [
            { index: 0, id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '' } },
          ],
        }),
        oaDelta({
          tool_calls: [{ index: 0, function: { name: 'read_file', arguments: '{"path":"a.txt"}' } }],
        }),
        oaDelta({}, 'tool_calls'),
        oaUsage(5, 2),
        OA_DONE,
      ]),
    );
    const seen: string[] = [];
    const result = await provider().complete(
      request({
        onDelta: (t) => seen.push(`text:${t}`),
        onThinking: (t) => seen.push(`thinking:${t}`),
        onToolCall: (n) => seen.push(`tool:${n}`),
      }),
    );
    expect(seen).toEqual(['thinking:Check ', 'thinking:the file.', 'text:Reading.', 'tool:read_file']);
    expect(result.text).toBe('Reading.');
    expect(result.toolCalls).toEqual([{ id: 'call_1', name: 'read_file', arguments: { path: 'a.txt' } }]);
  });

  it('streams text through onDelta and reports usage and the request it sent', async () => {
    server.handle((_req, res) =>
      sendSse(res, [
        oaDelta({ role: 'assistant', content: '' }),
        oaDelta({ content: 'Hel' }),
        oaDelta({ content: 'lo' }),
        oaDelta({ content: ' world' }),
        oaDelta({}, 'stop'),
        oaUsage(12, 3),
        OA_DONE,
      ]),
    );
    const deltas: string[] = [];
    const result = await provider().complete(request({ onDelta: (t) => deltas.push(t) }));

    expect(deltas).toEqual(['Hel', 'lo', ' world']);
    expect(result).toEqual({
      text: 'Hello world',
      toolCalls: [],
      usage: { inputTokens: 12, outputTokens: 3 },
      stopReason: 'end',
    });
    expect(server.requests).toHaveLength(1);
    const [sent] = server.requests;
    expect(sent?.method).toBe('POST');
    expect(sent?.url).toBe('/v1/chat/completions');
    expect(sent?.headers.authorization).toBe('Bearer sk-test');
    expect(sent?.body).toEqual({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Say hello' },
      ],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('assembles two parallel tool calls whose arguments are split across chunks', async () => {
    server.handle((_req, res) =>
      sendSse(res, [
        oaDelta({ role: 'assistant', content: null }),
        oaDelta({
          tool_calls: [
            { index: 0, id: 'call_A1', type: 'function', function: { name: 'read_file', arguments: '' } },
          ],
        }),
        oaDelta({ tool_calls: [{ index: 0, function: { arguments: '{"pa' } }] }),
        oaDelta({ tool_calls: [{ index: 0, function: { arguments: 'th": "READ' } }] }),
        oaDelta({
          tool_calls: [
            {
              index: 1,
              id: 'call_B2',
              type: 'function',
              function: { name: 'list_dir', arguments: '{"dir"' },
            },
          ],
        }),
        oaDelta({ tool_calls: [{ index: 0, function: { arguments: 'ME.md"}' } }] }),
        oaDelta({ tool_calls: [{ index: 1, function: { arguments: ': "src", "depth": 2}' } }] }),
        oaDelta({}, 'tool_calls'),
        oaUsage(140, 37),
        OA_DONE,
      ]),
    );
    const tools = [
      {
        name: 'read_file',
        description: 'Read a file',
        parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      },
      { name: 'list_dir', description: 'List a directory', parameters: { type: 'object', properties: {} } },
    ];
    const result = await provider().complete(
      request({
        messages: [
          { role: 'user', content: 'Look around' },
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'call_0', name: 'list_dir', arguments: { dir: '.' } }],
          },
          { role: 'tool', content: 'README.md\nsrc', toolCallId: 'call_0', toolName: 'list_dir' },
          { role: 'assistant', content: 'Two entries.' },
          { role: 'user', content: 'Go on' },
        ],
        tools,
        maxTokens: 256,
      }),
    );

    expect(result).toEqual({
      text: '',
      toolCalls: [
        { id: 'call_A1', name: 'read_file', arguments: { path: 'README.md' } },
        { id: 'call_B2', name: 'list_dir', arguments: { dir: 'src', depth: 2 } },
      ],
      usage: { inputTokens: 140, outputTokens: 37 },
      stopReason: 'tool_calls',
    });
    expect(server.requests[0]?.body).toEqual({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Look around' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_0', type: 'function', function: { name: 'list_dir', arguments: '{"dir":"."}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_0', content: 'README.md\nsrc' },
        { role: 'assistant', content: 'Two entries.' },
        { role: 'user', content: 'Go on' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      tools: [
        { type: 'function', function: tools[0] },
        { type: 'function', function: tools[1] },
      ],
      max_tokens: 256,
    });
  });

  it('sends a placeholder key when none is set and maps finish_reason "length"', async () => {
    server.handle((_req, res) =>
      sendSse(res, [oaDelta({ content: 'Once upon' }), oaDelta({}, 'length'), OA_DONE]),
    );
    const result = await provider('').complete(request());
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-no-key');
    expect(result).toEqual({
      text: 'Once upon',
      toolCalls: [],
      usage: { inputTokens: 0, outputTokens: 0 },
      stopReason: 'max_tokens',
    });
  });

  it('rejects tool arguments that are not JSON, naming the tool', async () => {
    server.handle((_req, res) =>
      sendSse(res, [
        oaDelta({
          tool_calls: [
            {
              index: 0,
              id: 'call_X',
              type: 'function',
              function: { name: 'write_file', arguments: '{"path":' },
            },
          ],
        }),
        oaDelta({}, 'tool_calls'),
        OA_DONE,
      ]),
    );
    const err = await failure(provider().complete(request()));
    expect(err).toBeInstanceOf(ModelProviderError);
    expect(err.message).toBe('openai: tool call "write_file" has invalid JSON arguments: {"path":');
  });

  it('reports HTTP 401 with the API error text, without retrying', async () => {
    server.handle((_req, res) =>
      sendJson(res, 401, {
        error: {
          message: 'Incorrect API key provided: sk-bad.',
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      }),
    );
    const err = await failure(provider('sk-bad').complete(request()));
    expect(err).toBeInstanceOf(ModelProviderError);
    expect(err.name).toBe('ModelProviderError');
    expect(err.message).toBe('openai: HTTP 401: Incorrect API key provided: sk-bad.');
    expect((err as ModelProviderError).status).toBe(401);
    expect(server.requests).toHaveLength(1);
  });

  it('reports HTTP 500 once, and a plain-text error body as it is', async () => {
    server.handle((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('upstream model crashed');
    });
    const err = await failure(provider().complete(request()));
    expect(err.message).toBe('openai: HTTP 500: upstream model crashed');
    expect((err as ModelProviderError).status).toBe(500);
    expect(server.requests).toHaveLength(1);
  });

  it('reports an Ollama-style string error body as it is', async () => {
    server.handle((_req, res) =>
      sendJson(res, 404, { error: 'model "llama9" not found, try pulling it first' }),
    );
    const err = await failure(provider().complete(request()));
    expect(err.message).toBe('openai: HTTP 404: model "llama9" not found, try pulling it first');
    expect((err as ModelProviderError).status).toBe(404);
  });

  it('reports a connection dropped mid-stream', async () => {
    server.handle((_req, res) => {
      startSse(res);
      res.write(`${oaDelta({ content: 'Par' })}\n\n`, () => res.socket?.destroy());
    });
    const deltas: string[] = [];
    const err = await failure(provider().complete(request({ onDelta: (t) => deltas.push(t) })));
    expect(err).toBeInstanceOf(ModelProviderError);
    expect(err.message).toMatch(/^openai: request failed: terminated/);
    expect(deltas).toEqual(['Par']);
  });

  it('reports an error object sent inside the stream', async () => {
    server.handle((_req, res) =>
      sendSse(res, [
        oaDelta({ content: 'Hi' }),
        'data: {"error":{"message":"model overloaded","type":"server_error"}}',
      ]),
    );
    const err = await failure(provider().complete(request()));
    expect(err).toBeInstanceOf(ModelProviderError);
    expect(err.message).toBe('openai: stream error: model overloaded');
  });

  it('rejects a garbage stream as malformed', async () => {
    server.handle((_req, res) => sendSse(res, [oaDelta({ content: 'Hi' }), 'data: {not json at all']));
    const err = await failure(provider().complete(request()));
    expect(err).toBeInstanceOf(ModelProviderError);
    expect(err.message).toMatch(/^openai: malformed stream: event data is not JSON \(.+\)$/);
  });

  it('rejects a stream that ends before any finish_reason', async () => {
    server.handle((_req, res) => sendSse(res, [oaDelta({ content: 'Half a sen' })]));
    const err = await failure(provider().complete(request()));
    expect(err).toBeInstanceOf(ModelProviderError);
    expect(err.message).toBe('openai: stream ended before the response finished');
  });

  it('reports a refused connection as a network error', async () => {
    const gone = await startWireServer();
    const origin = gone.origin;
    await gone.close();
    const p = createOpenAIProvider({ baseUrl: `${origin}/v1`, model: 'm', timeoutMs: 5_000 });
    const err = await failure(p.complete(request()));
    expect(err).toBeInstanceOf(ModelProviderError);
    expect(err.message).toMatch(/^openai: network error: .*ECONNREFUSED/);
  });

  it('cancels the HTTP request when aborted mid-stream', async () => {
    let serverSawClose: Promise<true> | undefined;
    server.handle((_req, res: ServerResponse) => {
      serverSawClose = closedBy(res);
      startSse(res);
      res.write(`${oaDelta({ content: 'Thinking' })}\n\n`);
      // No more data: only the client's abort can end this request.
    });
    const controller = new AbortController();
    const deltas: string[] = [];
    const err = await failure(
      provider().complete(
        request({
          signal: controller.signal,
          onDelta: (t) => {
            deltas.push(t);
            controller.abort();
          },
        }),
      ),
    );
    expect(err).toBeInstanceOf(ModelAbortedError);
    expect(err.name).toBe('ModelAbortedError');
    expect(deltas).toEqual(['Thinking']);
    expect(await serverSawClose).toBe(true);
  });

  it('rejects at once, without a request, when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const err = await failure(provider().complete(request({ signal: controller.signal })));
    expect(err).toBeInstanceOf(ModelAbortedError);
    expect(server.requests).toHaveLength(0);
  });

  it('cuts a stream that goes silent for longer than timeoutMs', async () => {
    let serverSawClose: Promise<true> | undefined;
    server.handle((_req, res) => {
      serverSawClose = closedBy(res);
      startSse(res);
      res.write(`${oaDelta({ content: 'Hm' })}\n\n`);
    });
    const p = createOpenAIProvider({ baseUrl: `${server.origin}/v1`, model: 'm', timeoutMs: 300 });
    const err = await failure(p.complete(request()));
    expect(err).toBeInstanceOf(ModelProviderError);
    expect(err.message).toBe('openai: no data from the server for 300 ms');
    expect(await serverSawClose).toBe(true);
  });
});
