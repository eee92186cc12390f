// Codex through @zed-industries/codex-acp, pinned in test/tools/install.ts, against the Responses
// stand-in: a model provider with the stand-in's base_url in a config.toml of a fresh CODEX_HOME
// (Codex's documented way to use another endpoint). Fails, never skips, when it cannot install.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll } from 'vitest';
import { startResponsesStandIn } from '../helpers/standin';
import { ACP_AGENTS, ensureTool } from '../tools/install';
import { wholeTurnSuite } from './suite';

const spec = ACP_AGENTS.find((a) => a.id === 'codex-acp')!;
let bin = '';
beforeAll(async () => {
  bin = fs.realpathSync(await ensureTool(spec, spec.pinned));
}, 600_000);

wholeTurnSuite({
  id: spec.id,
  startModel: () => startResponsesStandIn(),
  launch(model, home) {
    const codexHome = path.join(home, 'codex');
    fs.mkdirSync(codexHome, { recursive: true });
    fs.writeFileSync(
      path.join(codexHome, 'config.toml'),
      [
        'model = "gpt-5.4"', // a model Codex knows: another one makes it warn in the reply
        'model_provider = "standin"',
        '[model_providers.standin]',
        'name = "Stand-in"',
        `base_url = "${model.url}/v1"`,
        'wire_api = "responses"',
        'env_key = "STANDIN_API_KEY"',
        '',
      ].join('\n'),
    );
    return {
      command: process.execPath,
      args: [bin],
      env: { HOME: home, CODEX_HOME: codexHome, STANDIN_API_KEY: 'sk-standin' },
    };
  },
  asks: true,
  client: /codex/,
  // codex-acp 0.16.0 reports its context window only (no tokens in its answer, no cost).
  reports: { tokens: 'none', cost: false, contextSize: 258_400 },
});
