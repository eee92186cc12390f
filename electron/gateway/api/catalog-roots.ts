// The catalog's roots as the first run shows them: where Sightline looks for each tool's
// sessions, whether that folder exists, and which environment variable moves it.
import fs from 'node:fs';
import { CATALOG_PROVIDERS, type CatalogRootView } from '../../../shared/ipc/types';
import { CATALOG_ROOT_ENV } from '../catalog/roots';
import type { CatalogRoots } from '../types';

export function catalogRootViews(roots: Required<CatalogRoots> | undefined): CatalogRootView[] {
  if (!roots) return [];
  return CATALOG_PROVIDERS.map((provider) => ({
    provider,
    path: roots[provider],
    exists: fs.existsSync(roots[provider]),
    env: CATALOG_ROOT_ENV[provider],
  }));
}
