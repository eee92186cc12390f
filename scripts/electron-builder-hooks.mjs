/* global process -- Node script; the shared eslint config declares no Node globals for .mjs */
// electron-builder hook (build/electron-builder.yml → beforePack): compile better-sqlite3 for the
// Electron version and target arch being packaged, into out/native/, before electron-builder
// collects `files`. This replaces electron-builder's own npmRebuild, which would rebuild
// node_modules/better-sqlite3 in place and leave the checkout's tests with an Electron-ABI addon.
import { Arch } from 'electron-builder';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureElectronSqlite } from './native-sqlite.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export async function beforePack(context) {
  const platform = context.electronPlatformName === 'mas' ? 'darwin' : context.electronPlatformName;
  const arch = Arch[context.arch];
  if (platform !== process.platform) {
    throw new Error(
      `Packaging for ${platform} from ${process.platform}: native modules cannot be cross-compiled. ` +
        `Package each platform on its own OS (CI matrix).`,
    );
  }
  const result = await ensureElectronSqlite(root, {
    electronVersion: context.packager.info.framework.version,
    platform,
    arch,
  });
  if (!result.ok) throw new Error(result.reason);
}

export default beforePack;
