// Claude Code through @zed-industries/claude-agent-acp (the ACP registry's current adapter),
// pinned in test/tools/install.ts; fails, never skips, when it cannot be installed.
import fs from 'node:fs';
import { beforeAll } from 'vitest';
import { ACP_AGENTS, ensureTool } from '../tools/install';
import { claudeCode } from './claude-code';
import { wholeTurnSuite } from './suite';

const spec = ACP_AGENTS.find((a) => a.id === 'claude-agent-acp')!;
let bin = '';
beforeAll(async () => {
  bin = fs.realpathSync(await ensureTool(spec, spec.pinned));
}, 600_000);
wholeTurnSuite({
  ...claudeCode(spec, () => bin),
  answersLateAfterCancel: 'agentclientprotocol/claude-agent-acp#551',
});
