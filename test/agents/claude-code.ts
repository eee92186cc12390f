// Claude Code through Zed's ACP adapters, against the Anthropic stand-in. Claude Code refuses to
// skip permissions as root unless told it runs in a sandbox: IS_SANDBOX=1 (CI runs as root).
import { startAnthropicStandIn } from '../helpers/standin';
import type { ToolSpec } from '../tools/install';
import type { AgentUnderTest } from './harness';

/**
 * claude-agent-acp answers each prompt with the turn's tokens and reports its context window and
 * the session's cumulative cost (Claude Code's own price of the tokens) in usage_update;
 * claude-code-acp 0.16.2 reports nothing.
 */
const CLAUDE_AGENT_REPORTS: AgentUnderTest['reports'] = { tokens: 'turn', cost: true, contextSize: 200_000 };

/**
 * Claude Code's environment against the stand-in: a fresh home (no account, no settings of this
 * machine), the stand-in's URL and a key it accepts, nothing sent anywhere else.
 */
export function claudeCodeEnv(home: string, baseUrl: string): Record<string, string> {
  return {
    HOME: home,
    IS_SANDBOX: '1',
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: 'sk-ant-standin',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
}

export function claudeCode(spec: ToolSpec<string>, bin: () => string): AgentUnderTest {
  return {
    id: spec.id,
    startModel: () => startAnthropicStandIn(),
    launch: (model, home) => ({
      command: process.execPath,
      args: [bin()],
      env: claudeCodeEnv(home, model.url),
    }),
    asks: true,
    client: 'claude-code',
    reports: spec.id === 'claude-agent-acp' ? CLAUDE_AGENT_REPORTS : { tokens: 'none', cost: false },
  };
}
