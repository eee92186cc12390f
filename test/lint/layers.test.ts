// The layer rules of eslint.config.js fail a build when a wrong import is added: each case lints
// one line as if it stood in a file of that layer, with the project's own configuration.
import { ESLint } from 'eslint';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT });
});

async function restricted(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport const x = 1;\n`, {
    filePath: path.join(ROOT, file),
  });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

// [file the import stands in, the import, the reason the lint gives]
const WRONG: [string, string, RegExp][] = [
  [
    'electron/gateway/state/x.ts',
    "import { TurnEngine } from '../runtime/native/turns';",
    /state core never depends on/,
  ],
  [
    'electron/gateway/state/x.ts',
    "import { createCatalog } from '../catalog';",
    /state core never depends on/,
  ],
  [
    'electron/gateway/runtime/x.ts',
    "import { createMcpEndpoint } from '../mcp/http';",
    /reaches the catalog only through/,
  ],
  [
    'electron/gateway/mcp/x.ts',
    "import { createCatalog } from '../catalog';",
    /mcp\/ carries the session tools/,
  ],
  [
    'electron/gateway/trust/x.ts',
    "import { createSpawner } from '../runtime/spawn';",
    /trust\/ \(consent, sealed secrets\) sits under/,
  ],
  [
    'electron/gateway/db/x.ts',
    "import type { StateCore } from '../state/session-state';",
    /bottom of the gateway/,
  ],
  [
    'electron/gateway/sessions/x.ts',
    "import { createSpawner } from '../runtime/spawn';",
    /sits under tools and the runtime/,
  ],
  [
    'electron/gateway/tools/x.ts',
    "import { agentTools } from '../runtime/agent-tools';",
    /sits under the runtime/,
  ],
  [
    'electron/gateway/runtime/x.ts',
    "import { createCatalog } from '../catalog';",
    /composition root passes in/,
  ],
  [
    'electron/gateway/catalog/claude/x.ts',
    "import { createSessionStore } from '../../sessions/store';",
    /through types.ts only/,
  ],
  [
    'electron/gateway/api/x.ts',
    "import type { Db } from '../db/open';",
    /reach storage only through the services/,
  ],
  [
    'electron/gateway/runtime/acp/x.ts',
    "import { app } from 'electron';",
    /plain Node: never import electron/,
  ],
  ['electron/gateway/x.ts', "import { createWindow } from '../main/window';", /no transport and no UI/],
  ['renderer/src/x.ts', "import { createGateway } from '../../electron/gateway';", /imports only shared/],
  ['renderer/src/x.ts', "import fs from 'node:fs';", /runs without Node/],
  ['shared/x.ts', "import { LIMITS } from '../renderer/src/lib/limits';", /bottom layer/],
  ['shared/ipc/x.ts', "import path from 'path';", /runs without Node/],
  ['electron/preload/x.ts', "import { createGateway } from '../gateway';", /only shared\/ and electron/],
];

describe('layer rules', () => {
  for (const [file, code, why] of WRONG) {
    it(`${file}: ${code}`, async () => {
      const messages = await restricted(file, code);
      expect(messages).toHaveLength(1);
      expect(messages[0]).toMatch(why);
    });
  }

  it('the imports each layer does make pass', async () => {
    expect(
      await restricted(
        'electron/gateway/runtime/x.ts',
        "import type { StateCore } from '../state/session-state';",
      ),
    ).toEqual([]);
    expect(
      await restricted(
        'electron/gateway/sessions/x.ts',
        "import { resolveKey } from '../state/record-input';",
      ),
    ).toEqual([]);
    expect(
      await restricted('electron/gateway/catalog/x.ts', "import type { Sessions } from '../types';"),
    ).toEqual([]);
    expect(
      await restricted('renderer/src/x.ts', "import type { SessionView } from '../../shared/ipc/types';"),
    ).toEqual([]);
    expect(await restricted('electron/main/x.ts', "import { createGateway } from '../gateway';")).toEqual([]);
  });
});
