// OpenCode in its ACP mode (`opencode acp`, the opencode-ai CLI pinned in test/tools/install.ts),
// against the Chat Completions stand-in: a custom provider (`@ai-sdk/openai-compatible`) in an
// opencode.json named by OPENCODE_CONFIG, OpenCode's documented way to add a provider. Fails,
// never skips, when it cannot be installed.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll } from 'vitest';
import { startChatStandIn } from '../helpers/standin';
import { ensureTool, TOOLS } from '../tools/install';
import { wholeTurnSuite } from './suite';

const spec = TOOLS.find((a) => a.id === 'opencode')!;
let bin = '';
beforeAll(async () => {
  bin = fs.realpathSync(await ensureTool(spec, spec.pinned));
}, 600_000);

wholeTurnSuite({
  id: 'opencode',
  startModel: () => startChatStandIn(),
  launch(model, home) {
    const config = path.join(home, 'opencode.json');
    fs.writeFileSync(
      config,
      JSON.stringify({
        $schema: 'https://opencode.ai/config.json',
        model: 'standin/standin-model',
        small_model: 'standin/standin-model',
        autoupdate: false,
        share: 'disabled',
        provider: {
          standin: {
            npm: '@ai-sdk/openai-compatible',
            name: 'Stand-in',
            options: { baseURL: `${model.url}/v1`, apiKey: 'sk-standin' },
            models: { 'standin-model': { name: 'Stand-in model', tool_call: true } },
          },
        },
      }),
    );
    return {
      command: bin,
      args: ['acp'],
      env: {
        HOME: home,
        XDG_CONFIG_HOME: path.join(home, '.config'),
        XDG_DATA_HOME: path.join(home, '.local', 'share'),
        XDG_CACHE_HOME: path.join(home, '.cache'),
        XDG_STATE_HOME: path.join(home, '.local', 'state'),
        OPENCODE_CONFIG: config,
        OPENCODE_DISABLE_AUTOUPDATE: '1',
        OPENCODE_DISABLE_MODELS_FETCH: '1',
      },
    };
  },
  asks: false, // OpenCode's default permissions allow MCP tools
  client: /opencode/,
  // OpenCode answers with the tokens of the turn's last model call; its usage_update (cost,
  // context) needs a model with a known context limit, which the stand-in's is not.
  reports: { tokens: 'last', cost: false },
});
