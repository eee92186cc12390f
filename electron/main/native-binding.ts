// Where the Electron build of better-sqlite3 lives. node_modules keeps the build for the
// machine's Node (tests, browser mode); scripts/native-sqlite.mjs compiles a second copy for
// Electron's ABI into out/native/<dir>/, and main hands its path to better-sqlite3 through the
// `nativeBinding` option (via SIGHTLINE_SQLITE_BINDING, which openDatabase reads). Pure.
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
  const root = path.basename(appPath) === 'app.asar' ? `${appPath}.unpacked` : appPath;
  return path.join(root, 'out', 'native', nativeDirName(abi, platform, arch), BINDING_FILE);
}

export interface BindingChoice {
  path?: string;
  source: 'env' | 'electron-build' | 'none';
}

/** An explicit SIGHTLINE_SQLITE_BINDING wins; then our Electron build when it exists. */
export function chooseNativeBinding(
  envValue: string | undefined,
  candidate: string,
  exists: (file: string) => boolean,
): BindingChoice {
  if (envValue) return { path: envValue, source: 'env' };
  if (exists(candidate)) return { path: candidate, source: 'electron-build' };
  return { source: 'none' };
}
