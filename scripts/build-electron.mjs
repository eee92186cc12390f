/* global process, console -- Node scripts; the shared eslint config declares no Node globals for .mjs */
// `npm run build:electron`: bundles Electron's main process and the preload with esbuild.
//   electron/main/index.ts     → out/main/main.cjs
//   electron/preload/index.ts  → out/preload/preload.cjs
//   electron/gateway/installers/archive-worker.ts → out/worker/archive-worker.cjs (the thread that
//     unpacks agent archives; main.cjs finds it at ../worker/ from its own folder)
//   electron/gateway/mcp/stdio-shim.mjs → out/mcp/stdio-shim.mjs (copied)
// CommonJS because Electron loads main and a sandboxed preload as CommonJS scripts (the
// package is "type": "module", hence .cjs). electron and better-sqlite3 stay external: the
// first is provided by the runtime, the second is a native addon loaded from node_modules.
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  // Electron 45 ships Node 22.
  target: 'node22',
  sourcemap: 'linked',
  logLevel: 'warning',
  metafile: true,
  absWorkingDir: root,
  define: { 'process.env.NODE_ENV': '"production"' },
};

export const ARCHIVE_WORKER = 'electron/gateway/installers/archive-worker.ts';

export const TARGETS = [
  {
    entryPoints: ['electron/main/index.ts'],
    outfile: 'out/main/main.cjs',
    external: ['electron', 'better-sqlite3'],
  },
  {
    entryPoints: ['electron/preload/index.ts'],
    outfile: 'out/preload/preload.cjs',
    external: ['electron'],
  },
  {
    entryPoints: [ARCHIVE_WORKER],
    outfile: 'out/worker/archive-worker.cjs',
  },
];

/** A sandboxed preload can require 'electron' and nothing else: fail the build otherwise. */
function assertPreloadImports(metafile) {
  const output = Object.values(metafile.outputs).find((o) => o.entryPoint === 'electron/preload/index.ts');
  const external = (output?.imports ?? []).filter((i) => i.external).map((i) => i.path);
  const bad = external.filter((p) => p !== 'electron');
  if (bad.length > 0)
    throw new Error(`preload must only require 'electron', but requires: ${bad.join(', ')}`);
}

export async function buildElectron() {
  for (const target of TARGETS) {
    fs.rmSync(path.join(root, path.dirname(target.outfile)), { recursive: true, force: true });
    const result = await esbuild.build({ ...common, ...target });
    if (target.outfile.includes('preload')) assertPreloadImports(result.metafile);
  }
  // The stdio MCP shim runs under a plain `node`, as a file of its own (unpacked, see
  // build/electron-builder.yml); it has no dependencies, so it is copied as it is.
  fs.rmSync(path.join(root, 'out/mcp'), { recursive: true, force: true });
  fs.mkdirSync(path.join(root, 'out/mcp'), { recursive: true });
  fs.copyFileSync(path.join(root, MCP_SHIM), path.join(root, 'out/mcp/stdio-shim.mjs'));
}

export const MCP_SHIM = 'electron/gateway/mcp/stdio-shim.mjs';

/** Only the main bundle, as `npm run build:electron` makes it, to `outfile` (a test boots it). */
export async function buildMainBundle(outfile) {
  await esbuild.build({ ...common, ...TARGETS[0], outfile });
}

/** Only the archive worker's bundle, to `outfile` (a test runs it). */
export async function buildArchiveWorker(outfile) {
  await esbuild.build({ ...common, ...TARGETS[2], outfile });
}

/** Newest modification time of the sources that go into the bundles. */
export function newestSourceMtime() {
  let newest = 0;
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.(ts|mts|cts|json)$/.test(entry.name)) newest = Math.max(newest, fs.statSync(full).mtimeMs);
    }
  };
  for (const dir of ['electron/main', 'electron/preload', 'electron/gateway', 'shared']) {
    if (fs.existsSync(path.join(root, dir))) walk(path.join(root, dir));
  }
  return newest;
}

/** True when both bundles exist and are newer than every source file. */
export function electronBuildIsCurrent() {
  const newest = newestSourceMtime();
  return TARGETS.every((t) => {
    const out = path.join(root, t.outfile);
    return fs.existsSync(out) && fs.statSync(out).mtimeMs >= newest;
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await buildElectron();
  for (const t of TARGETS) console.log(`built ${t.outfile}`);
}
