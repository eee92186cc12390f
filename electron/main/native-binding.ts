// Where the Electron build of better-sqlite3 lives. node_modules keeps the build for the
// machine's Node (tests, browser mode); scripts/native-sqlite.mjs compiles a second copy for
// Electron's ABI into out/native/<dir>/, and main hands its path to the gateway's one SQLite
// helper (gateway/db/sqlite.ts, useNativeBinding), which passes it as better-sqlite3's
// `nativeBinding` option to every database it opens. Pure: the Electron API is passed in.
import path from 'node:path';

export const BINDING_FILE = 'better_sqlite3.node';

/** `electron-<abi>-<platform>-<arch>`: must match scripts/native-sqlite.mjs. */
export function nativeDirName(abi: string, platform: string, arch: string): string {
  return `electron-${abi}-${platform}-${arch}`;
}

/**
 * The binding path for this process. In a packaged app `appPath` is …/app.asar; native files
 * cannot be loaded from inside an archive, so electron-builder unpacks them to
 * app.asar.unpacked (asarUnpack) and the path is pointed there.
 */
export function nativeBindingPath(appPath: string, abi: string, platform: string, arch: string): string {
  return unpackedPath(appPath, 'out', 'native', nativeDirName(abi, platform, arch), BINDING_FILE);
}

/** A file the app ships outside its archive (asarUnpack), by its path under the app. */
export function unpackedPath(appPath: string, ...segments: string[]): string {
  const root = path.basename(appPath) === 'app.asar' ? `${appPath}.unpacked` : appPath;
  return path.join(root, ...segments);
}

/**
 * The stdio MCP shim (scripts/build-electron.mjs copies it to out/mcp/). It runs under the
 * `node` on PATH, which cannot read inside an archive, hence unpacked.
 */
export function mcpShimPath(appPath: string): string {
  return unpackedPath(appPath, 'out', 'mcp', 'stdio-shim.mjs');
}

export const BINDING_ENV = 'SIGHTLINE_SQLITE_BINDING';

/** The part of Electron's `app` the choice reads. */
export interface AppLike {
  isPackaged: boolean;
  getAppPath(): string;
}

export interface Runtime {
  abi: string;
  platform: string;
  arch: string;
}

export interface BindingChoice {
  path?: string;
  source: 'env' | 'electron-build' | 'none';
  /** Said once at start-up (never fatal). */
  warning?: string;
}

/**
 * Development builds (`npm start`) take an explicit SIGHTLINE_SQLITE_BINDING, then our Electron
 * build when it exists. A packaged app never reads the variable: loading any native addon named
 * by the environment would defeat the fuses (no RunAsNode, no NODE_OPTIONS, asar integrity). It
 * loads only the build unpacked next to its own app.asar, and refuses to start without it.
 */
export function chooseNativeBinding(
  app: AppLike,
  env: Readonly<Record<string, string | undefined>>,
  runtime: Runtime,
  exists: (file: string) => boolean,
): BindingChoice {
  const candidate = nativeBindingPath(app.getAppPath(), runtime.abi, runtime.platform, runtime.arch);
  const fromEnv = env[BINDING_ENV];
  if (!app.isPackaged && fromEnv) return { path: fromEnv, source: 'env' };
  const ignored = app.isPackaged && fromEnv ? `${BINDING_ENV} is ignored in a packaged app` : undefined;
  if (exists(candidate))
    return { path: candidate, source: 'electron-build', ...(ignored ? { warning: ignored } : {}) };
  if (app.isPackaged)
    throw new Error(
      `The Electron build of better-sqlite3 is missing at ${candidate}: the package is incomplete.`,
    );
  return {
    source: 'none',
    warning: `no Electron build of better-sqlite3 at ${candidate}; run npm start to build it`,
  };
}
