/* global process, console -- Node scripts; the shared eslint config declares no Node globals for .mjs */
// `npm start`: build what is stale, make sure Electron and the Electron build of better-sqlite3
// are there, then launch Electron. When Electron's binary cannot be had, explain where it comes
// from and how to retry, offer browser mode, and exit non-zero.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildElectron, electronBuildIsCurrent } from './build-electron.mjs';
import { buildNode } from './build-node.mjs';
import { electronVersion, ensureElectronSqlite } from './native-sqlite.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const electronDir = path.join(root, 'node_modules', 'electron');

function newestMtime(dirs) {
  let newest = 0;
  const walk = (p) => {
    const st = fs.statSync(p);
    if (st.isDirectory()) for (const e of fs.readdirSync(p)) walk(path.join(p, e));
    else newest = Math.max(newest, st.mtimeMs);
  };
  for (const d of dirs) if (fs.existsSync(d)) walk(d);
  return newest;
}

function buildRendererIfStale() {
  const index = path.join(root, 'out', 'renderer', 'index.html');
  const sources = ['renderer', 'shared'].map((d) => path.join(root, d));
  if (fs.existsSync(index) && fs.statSync(index).mtimeMs >= newestMtime(sources)) return;
  console.log('[start] building the renderer…');
  const vite = path.join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  const r = spawnSync(process.execPath, [vite, 'build', '--config', 'renderer/vite.config.ts'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

/**
 * The Electron executable, or undefined when it is not installed. Mirrors what
 * require('electron') resolves, without its side effect: in Electron 45 requiring the package
 * starts the download itself and throws when that fails.
 */
const PLATFORM_BINARY = { darwin: 'Electron.app/Contents/MacOS/Electron', win32: 'electron.exe' };

function electronBinary() {
  const pathFile = path.join(electronDir, 'path.txt');
  const rel = fs.existsSync(pathFile)
    ? fs.readFileSync(pathFile, 'utf8').trim()
    : process.env.ELECTRON_OVERRIDE_DIST_PATH
      ? (PLATFORM_BINARY[process.platform] ?? 'electron')
      : undefined;
  if (!rel) return undefined;
  const base = process.env.ELECTRON_OVERRIDE_DIST_PATH || path.join(electronDir, 'dist');
  const full = path.join(base, rel);
  return fs.existsSync(full) ? full : undefined;
}

function installElectron() {
  console.log('[start] Electron binary missing: downloading it (node node_modules/electron/install.js)…');
  const r = spawnSync(process.execPath, [path.join(electronDir, 'install.js')], {
    cwd: root,
    stdio: 'inherit',
  });
  return r.status === 0;
}

function explainMissingElectron(version) {
  const zip = `electron-v${version}-${process.platform}-${process.arch}.zip`;
  console.error(`
Sightline could not start: the Electron ${version} binary is not installed, and downloading it failed.

  Why: npm install does not run Electron's own download step, because package.json's
  "allowScripts" denies electron's postinstall. npm start runs it instead:
      node node_modules/electron/install.js
  Where it comes from: ${zip} from https://github.com/electron/electron/releases
  (fetched by @electron/get, cached in ~/.cache/electron or $electron_config_cache).

  To retry:        npm start            (or: node node_modules/electron/install.js)
  Behind a proxy or firewall: point ELECTRON_MIRROR at a mirror of the releases, e.g.
      ELECTRON_MIRROR=https://npmmirror.com/mirrors/electron/ npm start
  Offline: unzip ${zip} into a folder and set ELECTRON_OVERRIDE_DIST_PATH to it.

  Or use Sightline in your browser right now (same UI; browser mode keeps its data in
  ~/.sightline or $SIGHTLINE_DATA_DIR):
      npm run web
`);
}

async function main() {
  buildRendererIfStale();
  if (!electronBuildIsCurrent()) {
    console.log('[start] bundling main and preload…');
    await buildElectron();
  }
  // The node file installed on machines added over SSH (a fraction of a second to bundle).
  await buildNode();

  const version = electronVersion(root);
  let binary = electronBinary();
  if (!binary && installElectron()) binary = electronBinary();
  if (!binary) {
    explainMissingElectron(version);
    process.exit(1);
  }

  const sqlite = await ensureElectronSqlite(root);
  if (!sqlite.ok) {
    console.error(`\n${sqlite.reason}\n\nMeanwhile: npm run web starts Sightline in your browser.`);
    process.exit(1);
  }

  // Electron must not run as plain Node, whatever the calling shell has set.
  const env = { ...process.env, SIGHTLINE_SQLITE_BINDING: sqlite.file };
  delete env.ELECTRON_RUN_AS_NODE;
  const child = spawn(binary, [root, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit', env });
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      if (child.exitCode === null) child.kill(signal);
    });
  }
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

await main();
