// The provider seam stays portable: a provider folder and the kit use the file system, pure-JS
// packages and the provider interface only — no better-sqlite3, no links, no signal log — so a
// headless node (one bundled file, no native module) can serve the same providers.
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { PROVIDER_MODULES } from '../../electron/gateway/catalog';

const CATALOG = path.resolve(__dirname, '../../electron/gateway/catalog');
const PORTABLE = ['kit', ...PROVIDER_MODULES.map((m) => m.id)];

function importsOf(file: string): { spec: string; typeOnly: boolean }[] {
  const src = fs.readFileSync(file, 'utf8');
  return [...src.matchAll(/^import (type )?[^;]*? from '([^']+)';/gms)].map((m) => ({
    spec: m[2]!,
    typeOnly: m[1] !== undefined,
  }));
}

it('every provider folder and the kit import only node built-ins, fzstd, the seam and each other', () => {
  const bad: string[] = [];
  const files = [
    path.join(CATALOG, 'provider.ts'),
    ...PORTABLE.flatMap((d) =>
      fs
        .readdirSync(path.join(CATALOG, d))
        .filter((f) => f.endsWith('.ts'))
        .map((f) => path.join(CATALOG, d, f)),
    ),
  ];
  expect(files.length).toBeGreaterThan(15);
  for (const file of files)
    for (const { spec, typeOnly } of importsOf(file)) {
      if (spec.startsWith('node:') || spec === 'fzstd') continue;
      if (!spec.startsWith('.')) {
        bad.push(`${path.relative(CATALOG, file)} → ${spec}`);
        continue;
      }
      const target = path.relative(CATALOG, path.resolve(path.dirname(file), spec));
      const inSeam =
        target === 'provider' || PORTABLE.some((d) => target.startsWith(`${d}/`) || target === d);
      // Gateway types (entry and message shapes) are fine as types: they vanish from a bundle.
      if (inSeam || (typeOnly && target === '../types')) continue;
      bad.push(`${path.relative(CATALOG, file)} → ${spec}`);
    }
  expect(bad).toEqual([]);
});
