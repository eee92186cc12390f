// Layer rules live here, declared once, in the style of VS Code's import patterns: each entry
// names the files it governs and what they must never import, with the reason. An entry also
// holds for every folder below it (a file under electron/gateway/state/ obeys the gateway's rule
// and the state layer's). test/lint/layers.test.ts proves that a wrong import fails the lint.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];
/** An import specifier that reaches into a folder of that name (relative or not). */
const into = (...folders) => `(^|/)(${folders.join('|')})(/|$)`;
const NO_NODE = 'runs without Node: no Node built-ins, Electron or native modules here';

/**
 * The layers, outermost first. `packages`: module names it must not import; `folders`: project
 * folders it must not reach into (matched on the import specifier).
 */
export const LAYERS = [
  { files: 'shared', packages: [...nodeBuiltins, 'electron', 'better-sqlite3', 'ws'], why: `shared/ ${NO_NODE}` },
  { files: 'shared', folders: ['electron', 'renderer'], why: 'shared/ is the bottom layer: it imports nothing of the app' },
  { files: 'renderer', packages: [...nodeBuiltins, 'electron', 'better-sqlite3', 'ws'], why: `renderer/ ${NO_NODE}` },
  { files: 'renderer', folders: ['electron'], why: 'renderer/ imports only shared/ (the IPC contract); the gateway is behind the transport' },
  { files: 'electron/preload', folders: ['gateway', 'main', 'web', 'renderer'], why: 'the preload imports only shared/ and electron' },
  { files: 'electron/main', folders: ['renderer', 'preload'], why: 'Electron main hosts the gateway; the renderer and the preload are bundled on their own' },
  { files: 'electron/web', packages: ['electron'], why: 'browser mode runs in plain Node: never import electron here' },
  { files: 'electron/web', folders: ['main', 'preload', 'renderer'], why: 'browser mode serves the gateway without Electron' },
  { files: 'electron/node', packages: ['electron', 'better-sqlite3', 'ws'], why: 'the node file is one bundle without native dependencies, run by a plain node on another machine' },
  { files: 'electron/node', folders: ['main', 'preload', 'web', 'renderer'], why: 'a node serves its catalog on stdio: no app, no transport, no UI' },
  { files: 'electron/serve', packages: ['electron'], why: 'the serve gateway runs headless in plain Node: never import electron here' },
  { files: 'electron/serve', folders: ['main', 'preload', 'web', 'renderer'], why: 'the serve gateway is the gateway behind TLS: no app, no browser-mode server, no UI' },
  { files: 'electron/gateway', packages: ['electron'], why: 'the gateway runs in plain Node: never import electron here' },
  { files: 'electron/gateway', folders: ['main', 'preload', 'web', 'renderer'], why: 'the gateway knows no transport and no UI' },
  // Inside the gateway, from the bottom up: db → state → sessions → tools → runtime; the catalog
  // stands beside them and sees the rest only through types.ts; the API handlers are on top.
  { files: 'electron/gateway/db', folders: ['state', 'sessions', 'tools', 'runtime', 'catalog', 'api', 'mcp'], why: 'db/ is the bottom of the gateway' },
  { files: 'electron/gateway/state', folders: ['sessions', 'tools', 'runtime', 'catalog', 'api', 'mcp'], why: 'the state core never depends on sessions, tools, the runtime or the catalog' },
  { files: 'electron/gateway/sessions', folders: ['tools', 'runtime', 'catalog', 'api', 'mcp'], why: 'sessions/ sits under tools and the runtime' },
  { files: 'electron/gateway/tools', folders: ['runtime', 'catalog', 'api', 'mcp'], why: 'the tool registry sits under the runtime (agent tools register into it)' },
  { files: 'electron/gateway/runtime', folders: ['catalog', 'api', 'mcp'], why: 'the runtime reaches the catalog only through what the composition root passes in' },
  { files: 'electron/gateway/trust', folders: ['state', 'sessions', 'tools', 'runtime', 'catalog', 'api', 'mcp'], why: 'trust/ (consent, sealed secrets) sits under everything that asks it' },
  { files: 'electron/gateway/ownership', folders: ['state', 'sessions', 'tools', 'runtime', 'catalog', 'api', 'mcp'], why: 'ownership/ (which gateway runs a session) sits just above db/: every path that acts asks it' },
  { files: 'electron/gateway/catalog', folders: ['state', 'sessions', 'tools', 'runtime', 'api', 'mcp'], why: 'the catalog sees sessions and state through types.ts only' },
  { files: 'electron/gateway/nodes', folders: ['state', 'sessions', 'tools', 'runtime', 'catalog', 'api', 'mcp'], why: 'nodes/ (paired machines) sits under the catalog that reads through it; it sees no sessions or state' },
  { files: 'electron/gateway/installers', folders: ['catalog', 'api', 'mcp', 'nodes'], why: 'the registry installer uses the ACP runtime (its start check) and nothing above it' },
  { files: 'electron/gateway/mcp', folders: ['catalog', 'api'], why: 'mcp/ carries the session tools to outside agents: it sees the tools, never the catalog or the handlers' },
  { files: 'electron/gateway/api', folders: ['db'], why: 'the API handlers (the top, beside index.ts) reach storage only through the services or a handle passed in' },
];

/** One no-restricted-imports rule per folder, with every layer rule that governs it. */
function layerConfigs() {
  const targets = [...new Set(LAYERS.map((l) => l.files))];
  return targets.map((target) => {
    const rules = LAYERS.filter((l) => target === l.files || target.startsWith(`${l.files}/`));
    const paths = rules.flatMap((l) => (l.packages ?? []).map((name) => ({ name, message: l.why })));
    const patterns = rules.flatMap((l) => (l.folders ? [{ regex: into(...l.folders), message: l.why }] : []));
    return {
      files: [`${target}/**/*.ts`, `${target}/**/*.tsx`],
      rules: { 'no-restricted-imports': ['error', { paths, patterns }] },
    };
  });
}

export default tseslint.config(
  { ignores: ['node_modules/**', 'out/**', '.tmp/**', 'dist/**', 'release/**', 'test-results/**', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  ...layerConfigs(),
  { files: ['renderer/**/*.ts', 'renderer/**/*.tsx'], plugins: { 'react-hooks': reactHooks }, rules: reactHooks.configs.recommended.rules },
);
