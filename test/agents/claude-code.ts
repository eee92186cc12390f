// Claude Code through Zed's ACP adapters, against the Anthropic stand-in. Claude Code refuses to
// skip permissions as root unless told it runs in a sandbox: IS_SANDBOX=1 (CI runs as root).
import { startAnthropicStandIn } from '../helpers/standin';
import type { ToolSpec } from '../tools/install';
import type { AgentUnderTest } from './harness';

export function claudeCode(spec: ToolSpec<string>, bin: () => string): AgentUnderTest {
  return {
    id: spec.id,
    startModel: () => startAnthropicStandIn(),
    launch: (model, home) => ({
      command: process.execPath,
      args: [bin()],
      env: {
        HOME: home, // a fresh Claude Code home: no account, no settings of this machine
        IS_SANDBOX: '1',
        ANTHROPIC_BASE_URL: model.url,
        ANTHROPIC_API_KEY: 'sk-ant-standin',
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      },
    }),
    asks: true,
    client: 'claude-code',
  };
}
