// Tokens, cost and context as an ACP agent reports them (issue 28.6): the shapes the pinned agents
// send (README "Tokens and cost"), read as hostile input, and what a run and a session keep of them,
// through the gateway with the fixture agent as a real process. The real adapters report through
// the same path in the whole-turn suite (test/agents) and the browser e2e (test/e2e/claude-code).
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseUsageUpdate, tokensOf, UsageMeter } from '../../electron/gateway/runtime/acp/usage';
import { openTestGateway, waitFor, type TestGateway } from '../helpers/gateway';

describe('what an agent reports, parsed as hostile input', () => {
  it('takes the turn`s tokens from ACP `usage` (claude-agent-acp, OpenCode) or Gemini CLI`s quota', () => {
    expect(
      tokensOf({ stopReason: 'end_turn', usage: { inputTokens: 24, outputTokens: 16, totalTokens: 40 } }),
    ).toEqual({ input: 24, output: 16 });
    const gemini = {
      stopReason: 'end_turn',
      _meta: { quota: { token_count: { input_tokens: 12, output_tokens: 8 }, model_usage: [] } },
    };
    expect(tokensOf(gemini)).toEqual({ input: 12, output: 8 });
    for (const hostile of [
      undefined,
      null,
      'usage',
      { stopReason: 'end_turn' },
      { usage: { inputTokens: -1, outputTokens: 8 } },
      { usage: { inputTokens: 1.5, outputTokens: 8 } },
      { usage: { inputTokens: '12', outputTokens: 8 } },
      { usage: { inputTokens: 2 ** 60, outputTokens: 8 } },
      { usage: { inputTokens: 12 } },
      { _meta: { quota: { token_count: { input_tokens: 12, output_tokens: null } } } },
    ])
      expect(tokensOf(hostile)).toBeUndefined();
  });

  it('keeps the context window and a cost in an ISO currency; drops what does not parse', () => {
    const claude = {
      sessionUpdate: 'usage_update',
      used: 13,
      size: 200000,
      cost: { amount: 0.000156, currency: 'USD' },
    };
    expect(parseUsageUpdate(claude)).toEqual({
      context: { used: 13, size: 200000 },
      cost: { amount: 0.000156, currency: 'USD' },
    });
    // codex-acp reports the context only.
    expect(parseUsageUpdate({ used: 20, size: 258400 })).toEqual({ context: { used: 20, size: 258400 } });
    for (const cost of [
      { amount: -1, currency: 'USD' },
      { amount: 1e12, currency: 'USD' },
      { amount: 0.1, currency: 'usd' },
      { amount: 0.1, currency: 'USD; rm -rf /' },
      { amount: '0.1', currency: 'USD' },
    ])
      expect(parseUsageUpdate({ used: 1, size: 2, cost })).toEqual({ context: { used: 1, size: 2 } });
    for (const bad of [{ used: -1, size: 2 }, { used: 1, size: 0 }, { used: 1 }, null, 'x'])
      expect(parseUsageUpdate(bad)).toBeUndefined();
  });

  it('gives each turn what the cumulative cost grew by, and nothing to a turn it did not grow in', () => {
    const meter = new UsageMeter();
    const report = (amount: number, currency = 'USD') =>
      meter.seen({ context: { used: 13, size: 200000 }, cost: { amount, currency } });
    report(0.000156);
    expect(meter.endTurn({ usage: { inputTokens: 12, outputTokens: 8 } })).toEqual({
      tokens: { input: 12, output: 8 },
      cost: { amount: 0.000156, currency: 'USD' },
      context: { used: 13, size: 200000 },
    });
    report(0.000312);
    expect(meter.endTurn({}).cost).toEqual({ amount: 0.000156, currency: 'USD' });
    // No new report (a cancelled turn): no cost, the context as last reported.
    expect(meter.endTurn(undefined)).toEqual({ context: { used: 13, size: 200000 } });
    // The agent started counting again, or changed currency: the report is all a turn is sure of.
    report(0.0001);
    expect(meter.endTurn({}).cost).toEqual({ amount: 0.0001, currency: 'USD' });
    report(0.5, 'EUR');
    expect(meter.endTurn({}).cost).toEqual({ amount: 0.5, currency: 'EUR' });
    expect(new UsageMeter().endTurn({ stopReason: 'end_turn' })).toEqual({});
  });
});

const AGENT = path.resolve('test/fixtures/acp-agent/agent.mjs');
let t: TestGateway;
afterEach(() => t?.cleanup());

describe('a run and a session keep what their agent reported', () => {
  it('tokens, the cost per run and the context window; an agent reporting nothing shows nothing', async () => {
    t = openTestGateway();
    const { gw } = t;
    gw.acp.profiles.save({
      id: 'fixture',
      name: 'Fixture',
      command: process.execPath,
      args: [AGENT],
      env: {},
    });
    const turn = (updates: unknown[], answer: unknown = {}) => `usage ${JSON.stringify({ updates, answer })}`;
    const { key } = await gw.sessions.start({
      acpProfileId: 'fixture',
      message: turn([{ used: 13, size: 200000, cost: { amount: 0.000156, currency: 'USD' } }], {
        usage: { inputTokens: 24, outputTokens: 16, totalTokens: 40 },
      }),
    });
    const settled = (n: number) => () =>
      gw.runs.list(key).length === n &&
      gw.runs.list(key).every((r) => r.status !== 'running' && r.status !== 'queued');
    await waitFor(settled(1), 10_000, 'the first run');
    // A hostile report: a negative count the protocol refuses, a cost in no currency. The agent
    // keeps serving; the second run gets the cost the total grew by.
    await gw.human.send(
      key,
      turn(
        [
          { used: -1, size: 200000 },
          { used: 40, size: 200000, cost: { amount: 7, currency: 'dollars' } },
          { used: 41, size: 200000, cost: { amount: 0.000312, currency: 'USD' } },
        ],
        { usage: { inputTokens: 'many', outputTokens: 16 } },
      ),
    );
    await waitFor(settled(2), 10_000, 'the second run');
    // An agent that reports nothing (claude-code-acp 0.16.2).
    await gw.human.send(key, turn([]));
    await waitFor(settled(3), 10_000, 'the third run');
    const runs = gw.runs.list(key);
    expect(runs.map((r) => [r.status, r.inputTokens, r.outputTokens, r.cost, r.context])).toEqual([
      ['idle', 24, 16, { amount: 0.000156, currency: 'USD' }, { used: 13, size: 200000 }],
      ['idle', 0, 0, { amount: 0.000156, currency: 'USD' }, { used: 41, size: 200000 }],
      ['idle', 0, 0, undefined, { used: 41, size: 200000 }],
    ]);
    expect(gw.runtime.tokens(key)).toEqual({ input: 24, output: 16 });
    expect(gw.runtime.usage(key)).toEqual({
      costs: [{ amount: 0.000312, currency: 'USD' }],
      context: { used: 41, size: 200000 },
    });
    expect(gw.runtime.overview([key]).get(key)?.costs).toEqual([{ amount: 0.000312, currency: 'USD' }]);
  });
});
