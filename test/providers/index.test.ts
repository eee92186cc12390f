import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProvider } from '../../electron/gateway/runtime/native/providers/index';
import type { ModelProvider } from '../../electron/gateway/runtime/native/providers/types';
import {
  AN_STOP,
  anMessageDelta,
  anMessageStart,
  OA_DONE,
  oaDelta,
  sendSse,
  startWireServer,
} from './wire-server';
import type { WireServer } from './wire-server';

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());

const request = () => ({
  system: '',
  messages: [{ role: 'user' as const, content: 'hi' }],
  tools: [],
  signal: new AbortController().signal,
});

describe('createProvider', () => {
  it('builds an openai provider from string settings', async () => {
    server.handle((_req, res) => sendSse(res, [oaDelta({ content: 'ok' }, 'stop'), OA_DONE]));
    const p = createProvider('openai', {
      model: ' llama3.2 ',
      baseUrl: `${server.origin}/v1`,
      apiKey: '',
      timeoutMs: '4000',
    });
    expect(p.id).toBe('openai');
    expect((await p.complete(request())).text).toBe('ok');
    expect(server.requests.at(-1)?.body).toMatchObject({ model: 'llama3.2' });
  });

  it('builds an anthropic provider whose maxTokens setting is the default request limit', async () => {
    server.handle((_req, res) => sendSse(res, [anMessageStart(1), anMessageDelta('end_turn', 1), AN_STOP]));
    const p = createProvider('anthropic', {
      model: 'claude-haiku-4-5',
      baseUrl: server.origin,
      maxTokens: '2048',
    });
    expect(p.id).toBe('anthropic');
    expect(await p.complete(request())).toEqual({
      text: '',
      toolCalls: [],
      usage: { inputTokens: 1, outputTokens: 1 },
      stopReason: 'end',
    });
    expect(server.requests.at(-1)?.body).toMatchObject({ model: 'claude-haiku-4-5', max_tokens: 2048 });
  });

  it('hands scripted settings to the factory the runtime passes in', () => {
    const seen: Record<string, string>[] = [];
    const scripted: ModelProvider = {
      id: 'scripted',
      complete: () => Promise.reject(new Error('unused')),
    };
    const p = createProvider('scripted', { role: 'echo' }, (settings) => {
      seen.push(settings);
      return scripted;
    });
    expect(p).toBe(scripted);
    expect(seen).toEqual([{ role: 'echo' }]);
  });

  it('refuses unknown ids, missing models, bad numbers and scripted without a factory', () => {
    expect(() => createProvider('gemini', { model: 'x' })).toThrow(
      'unknown model provider "gemini" (expected openai, anthropic or scripted)',
    );
    expect(() => createProvider('openai', { model: '  ' })).toThrow(
      'model provider "openai" needs a model name (setting "model")',
    );
    expect(() => createProvider('anthropic', { model: 'm', timeoutMs: '5s' })).toThrow(
      'model provider "anthropic": setting "timeoutMs" must be a positive integer, got "5s"',
    );
    expect(() => createProvider('openai', { model: 'm', baseUrl: 'localhost:11434/v1' })).toThrow(
      'openai: base URL "localhost:11434/v1" must start with http:// or https://',
    );
    expect(() => createProvider('anthropic', { model: 'm', baseUrl: 'not a url' })).toThrow(
      'anthropic: base URL "not a url" is not a valid URL',
    );
    expect(() => createProvider('scripted', {})).toThrow(
      'model provider "scripted" needs a factory from the runtime',
    );
  });
});
