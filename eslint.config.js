// Layer rules live here, declared once: the gateway never imports Electron, and the
// renderer and shared code never import Node built-ins (or Electron).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];
const noNode = {
  'no-restricted-imports': [
    'error',
    {
      paths: [...nodeBuiltins, 'electron', 'better-sqlite3', 'ws'].map((name) => ({
        name,
        message: 'renderer/ and shared/ run without Node: no Node built-ins, Electron or native modules here.',
      })),
    },
  ],
};

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
  {
    files: ['electron/gateway/**/*.ts', 'electron/web/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'electron', message: 'The gateway and browser mode run in plain Node: never import electron here.' }] },
      ],
    },
  },
  { files: ['shared/**/*.ts'], rules: noNode },
  { files: ['renderer/**/*.ts', 'renderer/**/*.tsx'], plugins: { 'react-hooks': reactHooks }, rules: { ...noNode, ...reactHooks.configs.recommended.rules } },
);
