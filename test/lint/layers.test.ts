// The layer allow-lists of eslint.config.js fail a build when a wrong import is added: each case
// lints code as if it stood in a file of that layer, with the project's own configuration.
import { ESLint } from 'eslint';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { LAYERS } from '../../eslint.config.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const RULE = 'layers/allowed-imports';
let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT });
});

interface Found {
  line: number;
  message: string;
}

async function lint(file: string, code: string): Promise<Found[]> {
  const [result] = await eslint.lintText(`${code}\nexport const x = 1;\n`, {
    filePath: path.join(ROOT, file),
  });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === RULE)
    .map((m) => ({ line: m.line, message: m.message }));
}
const messages = async (file: string, code: string) => (await lint(file, code)).map((m) => m.message);

type Layer = (typeof LAYERS)[number];
/** A file that would stand in the layer: a new file in its folder, or its first named module. */
function fileIn(layer: Layer): string {
  const first = layer.files[0]!;
  return first.endsWith('/') ? `${first}x.ts` : `${first}.ts`;
}
/** A module of the layer, as a project path without extension. */
function moduleOf(layer: Layer): string {
  const first = layer.files[0]!;
  return first.endsWith('/') ? `${first}some-module` : first;
}
function specifier(from: string, to: string): string {
  const rel = path.posix.relative(path.posix.dirname(from), to);
  return rel.startsWith('.') ? rel : `./${rel}`;
}

// The probes that passed the old deny-lists (issue 27), and a few more: [file, import, layer named].
const PROBES: [string, string, string][] = [
  ['electron/gateway/state/x.ts', "import { createGateway } from '..';", 'gateway'],
  ['electron/gateway/state/x.ts', "import type { Gateway } from '../index';", 'gateway'],
  ['electron/gateway/state/x.ts', "import { supervise } from '../supervision';", 'gateway'],
  ['electron/gateway/state/x.ts', "import { createNodes } from '../nodes/service';", 'nodes'],
  ['electron/gateway/state/x.ts', "export const load = () => import('../runtime/native/turns');", 'runtime'],
  ['electron/gateway/db/x.ts', "import { createGateway } from '../index';", 'gateway'],
  ['electron/gateway/db/x.ts', "import { createOwnership } from '../ownership';", 'ownership'],
  ['electron/gateway/db/x.ts', "import { createNodes } from '../nodes/service';", 'nodes'],
  ['electron/gateway/runtime/x.ts', "import { createNodes } from '../nodes/service';", 'nodes'],
  ['electron/gateway/runtime/acp/x.ts', "import type { Nodes } from '../../nodes/service';", 'nodes'],
  ['electron/gateway/api/x.ts', "import { createStateRepo } from '../state/repo';", 'state'],
  ['electron/gateway/api/x.ts', "import type { Db } from '../db/open';", 'db'],
  [
    'electron/gateway/catalog/claude/x.ts',
    "import { createSessionStore } from '../../sessions/store';",
    'sessions',
  ],
  ['electron/gateway/trust/x.ts', "export * from '../runtime/spawn';", 'runtime'],
  ['electron/gateway/tools/x.ts', "export { agentTools } from '../runtime/agent-tools';", 'runtime'],
  ['electron/gateway/sessions/x.ts', "type T = typeof import('../runtime/spawn');", 'runtime'],
  ['electron/gateway/mcp/x.ts', "const c = require('../catalog');", 'catalog'],
  ['electron/gateway/runtime/x.ts', "import m = require('../mcp/http');", 'mcp'],
  ['electron/gateway/types.ts', "import type { SecretsOptions } from './trust/secrets';", 'trust'],
  ['electron/gateway/errors.ts', "import { EventHub } from './events';", 'gateway'],
  ['electron/gateway/index.ts', "import { createWindow } from '../main/window';", 'main'],
  ['renderer/src/x.ts', "import { createGateway } from '../../electron/gateway';", 'gateway'],
  ['renderer/src/lib/x.ts', "const g = await import('../../../electron/gateway/host');", 'gateway'],
  ['shared/x.ts', "import { LIMITS } from '../renderer/src/lib/limits';", 'renderer/lib'],
  ['electron/preload/x.ts', "import { createGateway } from '../gateway';", 'gateway'],
];

describe('layer allow-lists', () => {
  for (const [file, code, layer] of PROBES) {
    it(`${file}: ${code}`, async () => {
      const found = await messages(file, code);
      expect(found).toHaveLength(1);
      expect(found[0]).toContain(`is in ${layer})`);
    });
  }

  // Every layer against every other: one file per layer importing a module of each other layer,
  // statically and dynamically; exactly the layers off its allow-list fail, each with its reason.
  for (const layer of LAYERS) {
    it(`${layer.name} may import exactly ${layer.may.join(', ') || 'nothing of the app'}`, async () => {
      const file = fileIn(layer);
      const others = LAYERS.filter((l) => l !== layer);
      const lines = others.flatMap((other) => {
        const spec = specifier(file, moduleOf(other));
        return [`import '${spec}';`, `export const load${others.indexOf(other)} = () => import('${spec}');`];
      });
      const found = await lint(file, lines.join('\n'));
      const refused = new Set(found.map((f) => others[Math.floor((f.line - 1) / 2)]!.name));
      const expected = others.filter((o) => !layer.may.includes(o.name)).map((o) => o.name);
      expect([...refused].sort()).toEqual(expected.sort());
      expect(found).toHaveLength(expected.length * 2);
      for (const f of found) expect(f.message).toContain(layer.why);
    });
  }

  for (const layer of LAYERS.filter((l) => l.packages?.length)) {
    const name = layer.packages!.includes('node:fs') ? 'node:fs' : layer.packages![0]!;
    it(`${layer.name} must not import ${name}, not even dynamically`, async () => {
      const found = await messages(fileIn(layer), `import '${name}';\nconst m = await import('${name}');`);
      expect(found).toEqual([
        `${layer.name} must not import '${name}': ${layer.packagesWhy}`,
        `${layer.name} must not import '${name}': ${layer.packagesWhy}`,
      ]);
    });
  }

  it('a file in a folder no layer declares fails, and so does importing a module in no layer', async () => {
    expect(await messages('electron/gateway/newroom/x.ts', "import { a } from './a';")).toEqual([
      'This file belongs to no layer: declare its folder in LAYERS (eslint.config.js)',
    ]);
    const found = await messages(
      'electron/gateway/state/x.ts',
      "import { a } from '../../../test/helpers/logger';",
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('is in no layer)');
  });

  it('an import() whose module is computed fails: nobody can tell its layer', async () => {
    expect(await messages('electron/gateway/runtime/x.ts', "const n = 'x';\nawait import(n);")).toEqual([
      'runtime: a computed import() cannot be checked against LAYERS; name the module',
    ]);
  });

  it('the imports each layer does make pass', async () => {
    const fine: [string, string][] = [
      ['electron/gateway/runtime/x.ts', "import type { StateCore } from '../state/session-state';"],
      ['electron/gateway/runtime/native/x.ts', "const t = await import('../../tools/registry');"],
      ['electron/gateway/sessions/x.ts', "import { resolveKey } from '../state/record-input';"],
      ['electron/gateway/catalog/x.ts', "import type { Sessions } from '../types';"],
      ['electron/gateway/state/x.ts', "import { ownership } from '../ownership';"],
      ['electron/gateway/index.ts', "import { createCatalog } from './catalog';"],
      ['electron/gateway/api/x.ts', "import type { GatewayHost } from '../host';"],
      ['renderer/src/x.ts', "import type { SessionView } from '../../shared/ipc/types';"],
      ['electron/main/x.ts', "import { createGateway } from '../gateway';"],
      ['electron/main/x.ts', "import { app } from 'electron';"],
      ['electron/node/x.ts', "import { readFile } from 'node:fs/promises';"],
    ];
    for (const [file, code] of fine) expect(await messages(file, code), `${file}: ${code}`).toEqual([]);
  });
});
