import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicProvider } from '../../electron/gateway/runtime/native/providers/anthropic';
import { ModelAbortedError, ModelProviderError } from '../../electron/gateway/runtime/native/providers/types';
import type { ModelRequest } from '../../electron/gateway/runtime/native/providers/types';
import {
  AN_PING,
  AN_STOP,
  anEvent,
  anJsonDelta,
  anMessageDelta,
  anMessageStart,
  anTextDelta,
  closedBy,
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

function provider(apiKey = 'sk-ant-test', extra: { maxTokens?: number; timeoutMs?: number } = {}) {
  // A pasted `/v1/` suffix must not end up as `/v1/v1/messages`.
  return createAnthropicProvider({
    baseUrl: `${server.origin}/v1/`,
    apiKey,
    model: 'claude-sonnet-4-5',
    timeoutMs: 5_000,
    ...extra,
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

const textBlockStart = (index: number) =>
  anEvent('content_block_start', { index, content_block: { type: 'text', text: '' } });
const toolBlockStart = (index: number, id: string, name: string) =>
  anEvent('content_block_start', { index, content_block: { type: 'tool_use', id, name, input: {} } });
const blockStop = (index: number) => anEvent('content_block_stop', { index });

describe('anthropic provider', () => {
  it('streams thinking and announces tool calls as they start (live output)', async () => {
    server.handle((_req, res) =>
      sendSse(res, [
        anMessageStart(20),
        anEvent('content_block_start', {
          index: 0,
          content_block: { type: 'thinking', thinking: '', signature: '' },
        }),
        anEvent('content_block_delta', {
          index: 0,
          delta: { type: 'thinking_delta', thinking: 'Which file ' },
        }),
        anEvent('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'first?' } }),
        blockStop(0),
        textBlockStart(1),
        anTextDelta(1, 'Reading.'),
        blockStop(1),
        toolBlockStart(2, 'toolu_1', 'read_file'),
        anJsonDelta(2, '{"path": "a.txt"}'),
        blockStop(2),
        anMessageDelta('tool_use', 9),
        AN_STOP,
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
    expect(seen).toEqual(['thinking:Which file ', 'thinking:first?', 'text:Reading.', 'tool:read_file']);
    expect(result.text).toBe('Reading.');
    expect(result.toolCalls).toEqual([{ id: 'toolu_1', name: 'read_file', arguments: { path: 'a.txt' } }]);
  });

  it('streams text through onDelta and reports usage and the request it sent', async () => {
    server.handle((_req, res) =>
      sendSse(res, [
        anMessageStart(25, { cache_creation_input_tokens: 0, cache_read_input_tokens: 5 }),
        textBlockStart(0),
        AN_PING,
        anTextDelta(0, 'Hel'),
        anTextDelta(0, 'lo'),
        anTextDelta(0, ' world'),
        blockStop(0),
        anMessageDelta('end_turn', 15),
        AN_STOP,
      ]),
    );
    const deltas: string[] = [];
    const result = await provider().complete(request({ onDelta: (t) => deltas.push(t) }));

    expect(deltas).toEqual(['Hel', 'lo', ' world']);
    expect(result).toEqual({
      text: 'Hello world',
      toolCalls: [],
      usage: { inputTokens: 30, outputTokens: 15 },
      stopReason: 'end',
    });
    expect(server.requests).toHaveLength(1);
    const [sent] = server.requests;
    expect(sent?.method).toBe('POST');
    expect(sent?.url).toBe('/v1/messages');
    // This SDK release sends the API key as a bearer token.
    expect(sent?.headers.authorization).toBe('Bearer sk-ant-test');
    expect(sent?.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(sent?.body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello' }] }],
      stream: true,
      system: 'You are terse.',
    });
  });

  it('assembles tool_use blocks from split input_json_delta and merges tool results per the API', async () => {
    server.handle((_req, res) =>
      sendSse(res, [
        anMessageStart(410),
        textBlockStart(0),
        anTextDelta(0, 'Checking both.'),
        blockStop(0),
        toolBlockStart(1, 'toolu_01A', 'read_file'),
        anJsonDelta(1, ''),
        anJsonDelta(1, '{"path": "READ'),
        anJsonDelta(1, 'ME.md"}'),
        blockStop(1),
        toolBlockStart(2, 'toolu_01B', 'list_dir'),
        anJsonDelta(2, '{"dir": "src",'),
        AN_PING,
        anJsonDelta(2, ' "depth": 2}'),
        blockStop(2),
        anMessageDelta('tool_use', 88),
        AN_STOP,
      ]),
    );
    const deltas: string[] = [];
    const tools = [
      {
        name: 'read_file',
        description: 'Read a file',
        parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      },
    ];
    const result = await provider('sk-ant-test', { maxTokens: 1000 }).complete(
      request({
        system: '',
        onDelta: (t) => deltas.push(t),
        messages: [
          { role: 'user', content: 'Look around' },
          {
            role: 'assistant',
            content: 'Listing.',
            toolCalls: [
              { id: 'toolu_00X', name: 'list_dir', arguments: { dir: '.' } },
              { id: 'toolu_00Y', name: 'read_file', arguments: { path: 'a.txt' } },
            ],
          },
          { role: 'tool', content: 'README.md\nsrc', toolCallId: 'toolu_00X', toolName: 'list_dir' },
          { role: 'tool', content: 'alpha', toolCallId: 'toolu_00Y', toolName: 'read_file' },
          { role: 'user', content: 'And now?' },
          { role: 'user', content: '' },
        ],
        tools,
        maxTokens: 512,
      }),
    );

    expect(deltas).toEqual(['Checking both.']);
    expect(result).toEqual({
      text: 'Checking both.',
      toolCalls: [
        { id: 'toolu_01A', name: 'read_file', arguments: { path: 'README.md' } },
        { id: 'toolu_01B', name: 'list_dir', arguments: { dir: 'src', depth: 2 } },
      ],
      usage: { inputTokens: 410, outputTokens: 88 },
      stopReason: 'tool_calls',
    });
    expect(server.requests[0]?.body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 512,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Look around' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Listing.' },
            { type: 'tool_use', id: 'toolu_00X', name: 'list_dir', input: { dir: '.' } },
            { type: 'tool_use', id: 'toolu_00Y', name: 'read_file', input: { path: 'a.txt' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_00X', content: 'README.md\nsrc' },
            { type: 'tool_result', tool_use_id: 'toolu_00Y', content: 'alpha' },
            { type: 'text', text: 'And now?' },
          ],
        },
      ],
      stream: true,
      tools: [
        {
          name: 'read_file',
          description: 'Read a file',
          input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
        },
      ],
    });
  });

  it('rejects tool input that is not JSON, naming the tool', async () => {
    server.handle((_req, res) =>
      sendSse(res, [
        anMessageStart(10),
        toolBlockStart(0, 'toolu_01C', 'write_file'),
        anJsonDelta(0, '{"path": "a.txt", "text": '),
        blockStop(0),
        anMessageDelta('tool_use', 20),
        AN_STOP,
      ]),
    );
    const err = await failure(provider().complete(request()));
    expect(err).toBeInstanceOf(ModelProviderError);
    expect(err.message).toBe(
      'anthropic: tool call "write_file" has invalid JSON arguments: {"path": "a.txt", "text": ',
    );
  });

  it('maps the max_tokens and refusal stop reasons', async () => {
    for (const [wire, mapped] of [
      ['max_tokens', 'max_tokens'],
      ['refusal', 'refusal'],
      ['pause_turn', 'other'],
    ] as const) {
      server.handle((_req, res) =>
        sendSse(res, [
          anMessageStart(3),
          textBlockStart(0),
          anTextDelta(0, 'x'),
          anMessageDelta(wire, 1),
          AN_STOP,
        ]),
      );
      const result = await provider().complete(request());
      expect(result.stopReason).toBe(mapped);
    }
  });

  it('reports HTTP 401 with the API error text, without retrying', async () => {
    server.handle((_req, res) =>
      sendJson(res, 401, {
        type: 'error',
        error: { type: 'authentication_error', message: 'invalid x-api-key' },
        request_id: 'req_011CSHoEeqs5C35K2UUqR7Fy',
      }),
    );
    const err = await failure(provider('sk-bad').complete(request()));
    expect(err).toBeInstanceOf(ModelProviderError);
    expect(err.name).toBe('ModelProviderError');
    expect(err.message).toBe('anthropic: HTTP 401: invalid x-api-key');
    expect((err as ModelProviderError).status).toBe(401);
    expect(server.requests).toHaveLength(1);
  });

  it('reports HTTP 500 once', async () => {
    server.handle((_req, res) =>
      sendJson(res, 500, { type: 'error', error: { type: 'api_error', message: 'Internal server error' } }),
    );
    const err = await failure(provider().complete(request()));
    expect(err.message).toBe('anthropic: HTTP 500: Internal server error');
    expect((err as ModelProviderError).status).toBe(500);
    expect(server.requests).toHaveLength(1);
  });

  it('reports an `event: error` inside the stream', async () => {
    server.handle((_req, res) =>
      sendSse(res, [
        anMessageStart(10),
        textBlockStart(0),
        anTextDelta(0, 'Hi'),
        anEvent('error', { error: { type: 'overloaded_error', message: 'Overloaded' } }),
      ]),
    );
    const err = await failure(provider().complete(request()));
    expect(err).toBeInstanceOf(ModelProviderError);
    expect(err.message).toBe('anthropic: stream error (overloaded_error): Overloaded');
  });

  it('rejects a garbage stream as malformed', async () => {
    server.handle((_req, res) =>
      sendSse(res, [anMessageStart(10), 'event: content_block_delta\ndata: {oops']),
    );
    const err = await failure(provider().complete(request()));
    expect(err).toBeInstanceOf(ModelProviderError);
    expect(err.message).toMatch(/^anthropic: malformed stream: event data is not JSON \(.+\)$/);
  });

  it('rejects a stream that ends without message_stop', async () => {
    server.handle((_req, res) =>
      sendSse(res, [anMessageStart(10), textBlockStart(0), anTextDelta(0, 'Half')]),
    );
    const err = await failure(provider().complete(request()));
    expect(err).toBeInstanceOf(ModelProviderError);
    expect(err.message).toBe('anthropic: stream ended before the response finished');
  });

  it('reports a refused connection as a network error', async () => {
    const gone = await startWireServer();
    const origin = gone.origin;
    await gone.close();
    const p = createAnthropicProvider({ baseUrl: origin, model: 'm', timeoutMs: 5_000 });
    const err = await failure(p.complete(request()));
    expect(err).toBeInstanceOf(ModelProviderError);
    expect(err.message).toMatch(/^anthropic: network error: .*ECONNREFUSED/);
  });

  it('cancels the HTTP request when aborted mid-stream', async () => {
    let serverSawClose: Promise<true> | undefined;
    server.handle((_req, res) => {
      serverSawClose = closedBy(res);
      startSse(res);
      for (const f of [anMessageStart(10), textBlockStart(0), anTextDelta(0, 'Thinking')])
        res.write(`${f}\n\n`);
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
    expect(deltas).toEqual(['Thinking']);
    expect(await serverSawClose).toBe(true);
  });

  it('cancels while waiting for response headers', async () => {
    let serverSawClose: Promise<true> | undefined;
    let arrived: () => void = () => {};
    const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
    server.handle((_req, res) => {
      serverSawClose = closedBy(res);
      arrived();
    });
    const controller = new AbortController();
    const pending = failure(provider().complete(request({ signal: controller.signal })));
    await requestArrived;
    controller.abort();
    expect(await pending).toBeInstanceOf(ModelAbortedError);
    expect(await serverSawClose).toBe(true);
  });
});
