/* global process, console -- Node scripts; the shared eslint config declares no Node globals for .mjs */
// `npm run build:node`: bundles `sightline node` (electron/node/cli.ts) into one JavaScript file,
// out/node/sightline-node.mjs, with no native dependency: a remote machine runs it with its own
// Node (20 or newer). The gateway copies this file to a remote over SSH (~/.sightline-node/).
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const NODE_BUNDLE = path.join(root, 'out/node/sightline-node.mjs');

export async function buildNode(outfile = NODE_BUNDLE) {
  const tmp = `${outfile}.${process.pid}.tmp`;
  fs.mkdirSync(path.dirname(outfile), { recursive: true });
  const result = await esbuild.build({
    entryPoints: ['electron/node/cli.ts'],
    outfile: tmp,
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    metafile: true,
    legalComments: 'inline',
    banner: { js: '// sightline node: serves one machine\'s agent-session catalog over stdio. Built from electron/node/cli.ts.' },
  });
  // One file, nothing native: every import must be bundled or a node: built-in.
  const external = Object.values(result.metafile.outputs)
    .flatMap((o) => o.imports ?? [])
    .filter((i) => i.external && !i.path.startsWith('node:'))
    .map((i) => i.path);
  if (external.length > 0) {
    fs.rmSync(tmp, { force: true });
    throw new Error(`the node bundle must not require anything outside Node: ${external.join(', ')}`);
  }
  fs.renameSync(tmp, outfile);
  return outfile;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(`built ${path.relative(root, await buildNode())}`);
}
