// Child processes for the crash tests: each worker is bundled once with esbuild, because
// `node --import tsx` costs seconds per start and these tests start many.
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Bundles `entry` (a .ts file) into `outDir`; returns the .cjs path to run with `node`. */
export async function bundleWorker(entry: string, outDir: string): Promise<string> {
  const outfile = path.join(outDir, `${path.basename(entry, '.ts')}.cjs`);
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    external: ['better-sqlite3'],
    outfile,
    logLevel: 'warning',
  });
  return outfile;
}

/** The environment a bundled worker runs with: the native addon resolves from node_modules. */
export function workerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, NODE_PATH: path.join(ROOT, 'node_modules'), ...extra };
}

export const REPO_ROOT = ROOT;
