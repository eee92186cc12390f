// Layer rules live here, declared once: each layer names its files and the layers it MAY import
// (an allow-list; anything else fails the lint, also through '..', an index or a dynamic import),
// with the reason. A folder that is in no layer fails too, so a new folder must be placed here.
// The rule itself: scripts/eslint-layers.mjs. test/lint/layers.test.ts proves every line.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import layersPlugin from './scripts/eslint-layers.mjs';

const ROOT = path.dirname(fileURLToPath(import.meta.url));
const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];
const NATIVE = [...nodeBuiltins, 'electron', 'better-sqlite3', 'ws'];
const NO_NODE = 'runs without Node: no Node built-ins, Electron or native modules here';
const G = 'electron/gateway';
/** Every gateway folder but the API on top: what the composition root puts together. */
const GATEWAY_PARTS = [
  'person',
  'catalog',
  'nodes',
  'mcp',
  'installers',
  'runtime',
  'worktrees',
  'tools',
  'sessions',
  'state',
  'ownership',
  'trust',
  'db',
  'gateway/base',
  'shared',
];
const GATEWAY_PACKAGES = {
  packages: ['electron'],
  packagesWhy: 'the gateway runs in plain Node: never import electron here',
};

/**
 * The layers, top first. `files`: folders (ending in '/') or single modules (no extension);
 * `may`: the layers it may import (its own files always); `packages`: modules it must not import.
 * A new gateway folder: add a line below the layers it uses, and name it in the `may` of the
 * layers that use it and in GATEWAY_PARTS.
 */
export const LAYERS = [
  // The shells: each hosts the gateway (or its API) its own way.
  {
    name: 'main',
    files: ['electron/main/'],
    may: ['web', 'serve', 'api', 'gateway', 'db', 'gateway/base', 'shared'],
    why: 'Electron main hosts the gateway; the renderer and the preload are bundled on their own',
  },
  {
    name: 'preload',
    files: ['electron/preload/'],
    may: ['shared'],
    why: 'the preload imports only shared/ and electron',
  },
  {
    name: 'web',
    files: ['electron/web/'],
    may: ['serve', 'api', 'gateway', 'person', 'gateway/base', 'shared'],
    packages: ['electron'],
    packagesWhy: 'browser mode runs in plain Node: never import electron here',
    why: 'browser mode serves the gateway without Electron',
  },
  {
    name: 'serve',
    files: ['electron/serve/'],
    may: ['api', 'gateway', 'db', 'gateway/base', 'shared'],
    packages: ['electron'],
    packagesWhy: 'the serve gateway runs headless in plain Node: never import electron here',
    why: 'the serve gateway is the gateway behind TLS: no app, no browser-mode server, no UI',
  },
  {
    name: 'node',
    files: ['electron/node/'],
    may: ['catalog', 'nodes', 'runtime', 'gateway/base', 'shared'],
    packages: ['electron', 'better-sqlite3', 'ws'],
    packagesWhy:
      'the node file is one bundle without native dependencies, run by a plain node on another machine',
    why: 'a node serves its catalog and runs agents (the ACP runtime: confined fs, terminals, process trees) on stdio: no app, no transport, no UI',
  },
  // The renderer, top down: the app and its features; shared components; the stores (and the live
  // wiring that writes them); lib/ at the bottom (transport, formatting). All of it imports only
  // shared/ of the rest: the gateway is behind the transport.
  {
    name: 'renderer',
    files: ['renderer/'],
    may: ['renderer/components', 'renderer/stores', 'renderer/lib', 'shared'],
    packages: NATIVE,
    packagesWhy: `renderer/ ${NO_NODE}`,
    why: 'renderer/ imports only shared/ (the IPC contract); the gateway is behind the transport',
  },
  {
    name: 'renderer/components',
    files: ['renderer/src/components/'],
    may: ['renderer/stores', 'renderer/lib', 'shared'],
    packages: NATIVE,
    packagesWhy: `renderer/ ${NO_NODE}`,
    why: 'components are shared pieces under the features: they import no feature',
  },
  {
    name: 'renderer/stores',
    files: ['renderer/src/stores/'],
    may: ['renderer/lib', 'shared'],
    packages: NATIVE,
    packagesWhy: `renderer/ ${NO_NODE}`,
    why: 'the stores hold state and the live wiring that writes them; the views sit above them',
  },
  {
    name: 'renderer/lib',
    files: ['renderer/src/lib/'],
    may: ['shared'],
    packages: NATIVE,
    packagesWhy: `renderer/ ${NO_NODE}`,
    why: 'renderer/src/lib is the bottom: transport and formatting, no state and no views',
  },
  // The gateway, top down. The API handlers wrap a built gateway for the transports.
  {
    name: 'api',
    files: [`${G}/api/`],
    may: ['gateway', 'person', 'catalog', 'mcp', 'runtime', 'sessions', 'trust', 'gateway/base', 'shared'],
    ...GATEWAY_PACKAGES,
    why: 'the API handlers (the top) reach storage and state only through the services',
  },
  // The composition root and what only it uses: no layer below may import it.
  {
    name: 'gateway',
    files: [`${G}/index`, `${G}/host`, `${G}/supervision`, `${G}/events`],
    may: GATEWAY_PARTS,
    ...GATEWAY_PACKAGES,
    why: 'the composition root builds the gateway from its parts',
  },
  {
    name: 'person',
    files: [`${G}/person/`],
    may: ['db', 'gateway/base', 'shared'],
    ...GATEWAY_PACKAGES,
    why: "person/ (the person's inbox dismissals, preferences, sessions seen) owns its tables and sees nothing else",
  },
  {
    name: 'catalog',
    files: [`${G}/catalog/`],
    may: ['nodes', 'trust', 'db', 'gateway/base', 'shared'],
    ...GATEWAY_PACKAGES,
    why: 'the catalog sees sessions and state only through types.ts and what the composition root passes in',
  },
  {
    name: 'nodes',
    files: [`${G}/nodes/`],
    may: ['trust', 'db', 'gateway/base', 'shared'],
    ...GATEWAY_PACKAGES,
    why: 'nodes/ (paired machines) sits under the catalog that reads through it; it sees no sessions or state',
  },
  {
    name: 'mcp',
    files: [`${G}/mcp/`],
    may: ['runtime', 'tools', 'sessions', 'state', 'db', 'gateway/base', 'shared'],
    ...GATEWAY_PACKAGES,
    why: 'mcp/ carries the session tools to outside agents: it sees the tools, never the catalog or the handlers',
  },
  {
    name: 'installers',
    files: [`${G}/installers/`],
    may: ['runtime', 'db', 'gateway/base', 'shared'],
    ...GATEWAY_PACKAGES,
    why: 'the registry installer uses the ACP runtime (its start check) and nothing above it',
  },
  {
    name: 'runtime',
    files: [`${G}/runtime/`],
    may: [
      'worktrees',
      'tools',
      'sessions',
      'state',
      'ownership',
      'trust',
      'person',
      'db',
      'gateway/base',
      'shared',
    ],
    ...GATEWAY_PACKAGES,
    why: 'the runtime reaches the catalog and nodes only through what the composition root passes in',
  },
  {
    name: 'worktrees',
    files: [`${G}/worktrees/`],
    may: ['db', 'gateway/base', 'shared'],
    ...GATEWAY_PACKAGES,
    why: "worktrees/ (each session's git worktree) sits just above db/: it sees sessions only through what the composition root passes in",
  },
  {
    name: 'tools',
    files: [`${G}/tools/`],
    may: ['sessions', 'state', 'gateway/base', 'shared'],
    ...GATEWAY_PACKAGES,
    why: 'the tool registry sits under the runtime (agent tools register into it)',
  },
  {
    name: 'sessions',
    files: [`${G}/sessions/`],
    may: ['state', 'db', 'gateway/base', 'shared'],
    ...GATEWAY_PACKAGES,
    why: 'sessions/ sits under tools and the runtime',
  },
  {
    name: 'state',
    files: [`${G}/state/`],
    may: ['ownership', 'db', 'gateway/base', 'shared'],
    ...GATEWAY_PACKAGES,
    why: 'the state core never depends on sessions, tools, the runtime or the catalog',
  },
  {
    name: 'ownership',
    files: [`${G}/ownership/`],
    may: ['db', 'gateway/base', 'shared'],
    ...GATEWAY_PACKAGES,
    why: 'ownership/ (which gateway runs a session) sits just above db/: every path that acts asks it',
  },
  {
    name: 'trust',
    files: [`${G}/trust/`],
    may: ['db', 'gateway/base', 'shared'],
    ...GATEWAY_PACKAGES,
    why: 'trust/ (consent, sealed secrets) sits under everything that asks it',
  },
  {
    name: 'db',
    files: [`${G}/db/`],
    may: ['gateway/base', 'shared'],
    ...GATEWAY_PACKAGES,
    why: 'db/ is the bottom of the gateway',
  },
  // Leaves every gateway layer may import: the contract's types, errors, the scheduler port.
  {
    name: 'gateway/base',
    files: [`${G}/types`, `${G}/errors`, `${G}/scheduler`, `${G}/connection-guard`],
    may: ['shared'],
    ...GATEWAY_PACKAGES,
    why: "the gateway's leaves import nothing of the gateway",
  },
  {
    name: 'shared',
    files: ['shared/'],
    may: [],
    packages: NATIVE,
    packagesWhy: `shared/ ${NO_NODE}`,
    why: 'shared/ is the bottom layer: it imports nothing of the app',
  },
];

/** The allow-list rule for every product file (tests, scripts and configs are in no layer). */
function layerConfigs() {
  return [
    {
      files: ['{electron,shared,renderer}/**/*.{ts,tsx,mts,mjs}'],
      ignores: ['renderer/vite.config.ts'],
      plugins: { layers: layersPlugin },
      rules: { 'layers/allowed-imports': ['error', { root: ROOT, layers: LAYERS }] },
    },
  ];
}

export default tseslint.config(
  {
    ignores: ['node_modules/**', 'out/**', '.tmp/**', 'dist/**', 'release/**', 'test-results/**', '**/*.cjs'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  ...layerConfigs(),
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
);
