/* global process, console -- Node scripts; the shared eslint config declares no Node globals for .mjs */
// The Electron build of better-sqlite3, side by side with the Node build.
//
// node_modules/better-sqlite3/build/Release holds the addon compiled for the machine's Node: the
// tests and browser mode load it. Electron has its own ABI, so this script compiles a second
// copy from a staging copy of the package (node_modules is never touched) and puts the result in
//   out/native/electron-<abi>-<platform>-<arch>/better_sqlite3.node
// Electron's main process passes that path to better-sqlite3's `nativeBinding` option
// (electron/main/native-binding.ts). Used by scripts/start.mjs and by electron-builder's
// beforeBuild hook (scripts/electron-builder-hooks.mjs). See build/README.md.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);

export const BINDING_FILE = 'better_sqlite3.node';

/** Must match nativeDirName() in electron/main/native-binding.ts. */
export function nativeDirName(abi, platform, arch) {
  return `electron-${abi}-${platform}-${arch}`;
}

export function electronVersion(root) {
  return JSON.parse(fs.readFileSync(path.join(root, 'node_modules/electron/package.json'), 'utf8')).version;
}

export function electronAbi(version) {
  return require('node-abi').getAbi(version, 'electron');
}

function sqliteVersion(root) {
  return JSON.parse(fs.readFileSync(path.join(root, 'node_modules/better-sqlite3/package.json'), 'utf8'))
    .version;
}

/** Where the Electron build goes, and the stamp that says what it was built from. */
export function nativeTarget(root, { version, platform = process.platform, arch = process.arch }) {
  const dir = path.join(root, 'out', 'native', nativeDirName(electronAbi(version), platform, arch));
  return { dir, file: path.join(dir, BINDING_FILE), stamp: path.join(dir, 'stamp.json') };
}

/** NODE_MODULE_VERSION of a headers folder (`<dir>/include/node/node_version.h`), if readable. */
export function headersAbi(nodedir) {
  try {
    const h = fs.readFileSync(path.join(nodedir, 'include', 'node', 'node_version.h'), 'utf8');
    const all = [...h.matchAll(/#define NODE_MODULE_VERSION (\d+)/g)];
    return all.at(-1)?.[1];
  } catch {
    return undefined;
  }
}

/** The ABI a compiled addon was built for, from its `node_register_module_v<abi>` symbol. */
export function addonAbi(file) {
  const m = /node_register_module_v(\d+)/.exec(fs.readFileSync(file).toString('latin1'));
  return m?.[1];
}

/**
 * node-gyp takes its headers from npm_config_nodedir when set (an ~/.npmrc `nodedir=/usr` is
 * common on machines that build offline). Those are Node's headers, not Electron's: a build
 * against them loads in Node but not in Electron. Keep nodedir only when it holds headers of
 * Electron's ABI.
 */
function buildEnvFor(abi, log) {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (key.toLowerCase() !== 'npm_config_nodedir') continue;
    const found = headersAbi(env[key]);
    if (found !== abi) {
      log(
        `[native] ignoring ${key}=${env[key]}: its headers are for ABI ${found ?? 'unknown'}, Electron needs ${abi}`,
      );
      delete env[key];
    }
  }
  return env;
}

function isCurrent(target, wanted) {
  try {
    const stamp = JSON.parse(fs.readFileSync(target.stamp, 'utf8'));
    return (
      fs.existsSync(target.file) &&
      stamp.electron === wanted.electron &&
      stamp.betterSqlite3 === wanted.betterSqlite3
    );
  } catch {
    return false;
  }
}

/**
 * Builds the addon for Electron unless an up-to-date build exists. Resolves to
 * { ok: true, file, built } or { ok: false, file, reason } (it never throws, so callers can
 * explain and fall back).
 */
export async function ensureElectronSqlite(root, opts = {}) {
  const version = opts.electronVersion ?? electronVersion(root);
  const platform = opts.platform ?? process.platform;
  const arch = opts.arch ?? process.arch;
  const log = opts.log ?? console.log;
  const target = nativeTarget(root, { version, platform, arch });
  const wanted = { electron: version, betterSqlite3: sqliteVersion(root) };
  if (!opts.force && isCurrent(target, wanted) && addonAbi(target.file) === electronAbi(version))
    return { ok: true, file: target.file, built: false };

  const stage = path.join(
    root,
    'out',
    'native',
    '.stage',
    nativeDirName(electronAbi(version), platform, arch),
  );
  const stagedPkg = path.join(stage, 'node_modules', 'better-sqlite3');
  fs.rmSync(stage, { recursive: true, force: true });
  fs.mkdirSync(stagedPkg, { recursive: true });
  fs.writeFileSync(
    path.join(stage, 'package.json'),
    JSON.stringify({
      name: 'sightline-native-stage',
      private: true,
      dependencies: { 'better-sqlite3': wanted.betterSqlite3 },
    }),
  );
  // The package without its Node build: sources, the bundled SQLite and package.json.
  const source = path.join(root, 'node_modules', 'better-sqlite3');
  fs.cpSync(source, stagedPkg, {
    recursive: true,
    filter: (src) => !src.startsWith(path.join(source, 'build')),
  });

  const headerURL = process.env.ELECTRON_HEADERS_URL || 'https://www.electronjs.org/headers';
  log(
    `[native] building better-sqlite3 ${wanted.betterSqlite3} for Electron ${version} (${platform}-${arch})…`,
  );
  const abi = electronAbi(version);
  const savedEnv = process.env;
  try {
    const { rebuild } = await import('@electron/rebuild');
    // @electron/rebuild forks node-gyp with process.env.
    process.env = buildEnvFor(abi, log);
    await rebuild({
      buildPath: stage,
      electronVersion: version,
      platform,
      arch,
      onlyModules: ['better-sqlite3'],
      force: true,
      headerURL,
      buildFromSource: process.env.SIGHTLINE_SQLITE_FROM_SOURCE === '1',
    });
    const built = path.join(stagedPkg, 'build', 'Release', BINDING_FILE);
    if (!fs.existsSync(built)) throw new Error(`the rebuild finished without producing ${built}`);
    const builtAbi = addonAbi(built);
    if (builtAbi !== abi)
      throw new Error(
        `the addon was built for ABI ${builtAbi ?? 'unknown'}, Electron ${version} needs ${abi}`,
      );
    fs.mkdirSync(target.dir, { recursive: true });
    fs.copyFileSync(built, target.file);
    fs.writeFileSync(
      target.stamp,
      JSON.stringify({ ...wanted, platform, arch, builtAt: new Date().toISOString() }, null, 2),
    );
    fs.rmSync(stage, { recursive: true, force: true });
    log(`[native] ${path.relative(root, target.file)}`);
    return { ok: true, file: target.file, built: true };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    fs.rmSync(stage, { recursive: true, force: true });
    return { ok: false, file: target.file, reason: explain(message, version, headerURL) };
  } finally {
    process.env = savedEnv;
  }
}

function explain(message, version, headerURL) {
  // node-gyp prints its own reason above; the usual one here is the headers download.
  return [
    `Could not build better-sqlite3 for Electron ${version}: ${message.split('\n')[0]}`,
    `Compiling for Electron needs its headers (node-v${version}-headers.tar.gz from ${headerURL}).`,
    'If they could not be downloaded: go online and retry, set ELECTRON_HEADERS_URL to a mirror of',
    'https://www.electronjs.org/headers, or unpack the headers tarball and set npm_config_nodedir to',
    'that folder (build/README.md). Tests and browser mode (npm run web) do not need this build.',
  ].join('\n');
}

// `node scripts/native-sqlite.mjs [--force]`: build it by hand.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const result = await ensureElectronSqlite(root, { force: process.argv.includes('--force') });
  if (!result.ok) {
    console.error(result.reason);
    process.exit(1);
  }
  console.log(result.built ? `built ${result.file}` : `up to date: ${result.file}`);
}
