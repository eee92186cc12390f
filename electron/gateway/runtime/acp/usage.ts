// Tokens, cost and context as a real agent reports them (issue 28.6), read as hostile input: a
// field that does not parse is dropped, never guessed, and an agent that reports nothing shows
// nothing. What the pinned agents send (README "Tokens and cost"):
// * the prompt's answer: `usage` ({ inputTokens, outputTokens, … }, the turn's — claude-agent-acp,
//   OpenCode) or Gemini CLI's `_meta.quota.token_count` ({ input_tokens, output_tokens });
// * `usage_update` session updates: `used`/`size` (the context window; claude-agent-acp, codex-acp)
//   and `cost`, the session's cumulative cost so far (claude-agent-acp, OpenCode). A run's cost is
//   what the cumulative cost grew by while it ran.
import { z } from 'zod';
import type { ContextUse, Cost } from '../../types';
import type { RunUsage } from '../run-lifecycle';

const count = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const acpUsage = z.object({ inputTokens: count, outputTokens: count });
const geminiQuota = z.object({
  quota: z.object({ token_count: z.object({ input_tokens: count, output_tokens: count }) }),
});
/** An amount of money no agent run plausibly exceeds; beyond it the report is garbage. */
const MAX_AMOUNT = 1e9;
const cost = z.object({
  amount: z.number().finite().nonnegative().max(MAX_AMOUNT),
  currency: z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 code'),
});
const usageUpdate = z.object({ used: count, size: count.positive(), cost: z.unknown().optional() });

/** What one turn of an agent reported: each part only when the agent reported it. */
export type TurnUsage = RunUsage;

/** The turn's tokens from the agent's answer to session/prompt (ACP `usage`, else Gemini's). */
export function tokensOf(response: unknown): TurnUsage['tokens'] {
  if (typeof response !== 'object' || response === null) return undefined;
  const r = response as { usage?: unknown; _meta?: unknown };
  const acp = acpUsage.safeParse(r.usage);
  if (acp.success) return { input: acp.data.inputTokens, output: acp.data.outputTokens };
  const gemini = geminiQuota.safeParse(r._meta);
  if (gemini.success) {
    const t = gemini.data.quota.token_count;
    return { input: t.input_tokens, output: t.output_tokens };
  }
  return undefined;
}

/** A `usage_update` as Sightline keeps it; undefined when its numbers do not parse. */
export function parseUsageUpdate(update: unknown): { context: ContextUse; cost?: Cost } | undefined {
  const u = usageUpdate.safeParse(update);
  if (!u.success) return undefined;
  const c = cost.safeParse(u.data.cost);
  return {
    context: { used: u.data.used, size: u.data.size },
    ...(c.success ? { cost: c.data } : {}),
  };
}

/**
 * One agent process's reports across its turns. The context is the latest reported; the cost is
 * cumulative for the agent's session, so each turn takes what it grew by since the last turn took
 * its share (a report that arrives after a turn's answer counts for the next turn).
 */
export class UsageMeter {
  private context: ContextUse | undefined;
  private cumulative: Cost | undefined;
  private taken: Cost | undefined;

  seen(report: { context: ContextUse; cost?: Cost }): void {
    this.context = report.context;
    if (report.cost) this.cumulative = report.cost;
  }

  /** The turn ended: its tokens (from the answer, when there was one), cost and context. */
  endTurn(response: unknown): TurnUsage {
    const tokens = tokensOf(response);
    return {
      ...(tokens ? { tokens } : {}),
      ...(this.costSinceLastTurn() ?? {}),
      ...(this.context ? { context: { ...this.context } } : {}),
    };
  }

  private costSinceLastTurn(): { cost: Cost } | undefined {
    const now = this.cumulative;
    if (!now || (this.taken && this.taken.amount === now.amount && this.taken.currency === now.currency))
      return undefined;
    const before = this.taken;
    this.taken = now;
    // Another currency, or a total that shrank (the agent started counting again): the report
    // is all this turn can be sure of.
    if (!before || before.currency !== now.currency || now.amount < before.amount) return { cost: now };
    // Rounded to a billionth: the difference of two decimals is not exact in binary.
    const amount = Math.round((now.amount - before.amount) * 1e9) / 1e9;
    return { cost: { amount, currency: now.currency } };
  }
}
