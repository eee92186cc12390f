// The Anthropic stand-in speaks the wire format the official SDK parses: a streamed tool_use whose
// input arrives as input_json_delta, a text reply built from the tool result, a stream held at a
// gate until released, and a held stream the client abandons (what an agent's cancel looks like).
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gate, startAnthropicStandIn, type StandIn } from '../helpers/standin';

let model: StandIn;
let sdk: Anthropic;
const tools = [{ name: 'mcp__sightline__session_status', input_schema: { type: 'object' as const } }];
beforeAll(async () => {
  model = await startAnthropicStandIn();
  sdk = new Anthropic({ baseURL: model.url, apiKey: 'sk-standin', maxRetries: 0 });
});
afterAll(() => model.close());

describe('the Anthropic stand-in', () => {
  it('streams a tool call, then text from its result, and counts tokens', async () => {
    model.script([
      { call: 'session_status', input: { sessionKey: 'agent:main:main' } },
      (turn) => ({ text: `status: ${turn.toolResults.join()}` }),
    ]);
    const first = await sdk.messages
      .stream({
        model: 'claude-sonnet-4-5',
        max_tokens: 64,
        tools,
        messages: [{ role: 'user', content: 'hi' }],
      })
      .finalMessage();
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content[0] as Anthropic.ToolUseBlock;
    expect([use.name, use.input]).toEqual([
      'mcp__sightline__session_status',
      { sessionKey: 'agent:main:main' },
    ]);
    const second = await sdk.messages
      .stream({
        model: 'claude-sonnet-4-5',
        max_tokens: 64,
        tools,
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'idle' }] },
        ],
      })
      .finalMessage();
    expect(second.content).toEqual([{ type: 'text', text: 'status: idle' }]);
    expect(model.turns.map((t) => t.userText)).toEqual(['hi', '']);
    const counted = await sdk.messages.countTokens({
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(counted.input_tokens).toBeGreaterThan(0);
  });

  it('holds a stream at a gate until released, and sees a client that goes away', async () => {
    const held = gate();
    const abandoned = gate();
    model.script([
      { text: 'first half, second half', gate: held },
      { text: 'never finished', gate: abandoned },
    ]);
    const ask = () =>
      sdk.messages.stream({
        model: 'claude-sonnet-4-5',
        max_tokens: 64,
        tools,
        messages: [{ role: 'user', content: 'go' }],
      });
    const whole = ask().finalMessage();
    await held.reached;
    held.release();
    expect((await whole).content).toEqual([{ type: 'text', text: 'first half, second half' }]);
    const stream = ask();
    const failed = stream.finalMessage().catch((err: unknown) => err);
    await abandoned.reached;
    stream.abort();
    await abandoned.closedByClient;
    expect(await failed).toBeInstanceOf(Error);
  });

  it('answers a side request that offers no tools with `ok`, leaving the script alone', async () => {
    model.script([{ text: 'scripted' }]);
    const side = await sdk.messages.create({
      model: 'claude-haiku-4-5',
      max_tokens: 8,
      messages: [{ role: 'user', content: 'title?' }],
    });
    expect(side.content).toEqual([{ type: 'text', text: 'ok' }]);
    const turn = await sdk.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 8,
      tools,
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(turn.content).toEqual([{ type: 'text', text: 'scripted' }]);
  });
});
