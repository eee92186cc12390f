// Reads the shell's sources and pins their structure: one window factory, pure modules free of
// runtime Electron imports, no weakened security flags anywhere.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');
const read = (rel: string) => fs.readFileSync(path.join(root, rel), 'utf8');
const tsFiles = (dir: string) =>
  fs
    .readdirSync(path.join(root, dir))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `${dir}/${f}`)
    .sort();

const mainFiles = tsFiles('electron/main');
const shellFiles = [...mainFiles, ...tsFiles('electron/preload')];
/** Files that may import Electron at runtime: the glue. Everything else is unit-tested under Node. */
const GLUE = new Set([
  'electron/main/index.ts',
  'electron/main/notify.ts',
  'electron/main/protocol.ts',
  'electron/main/window.ts',
  'electron/preload/index.ts',
]);
const runtimeElectronImport = /^import\s+(?!type\b)[^;]*from\s+['"]electron['"]/m;

describe('electron shell structure', () => {
  it('creates BrowserWindow only in the window factory, exactly once', () => {
    const creators = mainFiles.filter((f) => /new\s+BrowserWindow\b/.test(read(f)));
    expect(creators).toEqual(['electron/main/window.ts']);
    expect(read('electron/main/window.ts').match(/new\s+BrowserWindow\b/g)).toHaveLength(1);
    for (const f of ['electron/gateway', 'electron/web', 'electron/preload']) {
      const hits = fs
        .readdirSync(path.join(root, f), { recursive: true })
        .map(String)
        .filter((p) => p.endsWith('.ts'))
        .filter((p) => /new\s+(BrowserWindow|BrowserView|WebContentsView)\b/.test(read(`${f}/${p}`)));
      expect([f, hits]).toEqual([f, []]);
    }
  });

  it('builds webPreferences only from secureWebPreferences', () => {
    const users = shellFiles.filter((f) => /webPreferences\s*:/.test(read(f)));
    expect(users).toEqual(['electron/main/window.ts']);
    expect(read('electron/main/window.ts')).toMatch(/webPreferences:\s*\{\s*\.\.\.secureWebPreferences\(/);
  });

  it('never weakens a security flag anywhere in the shell', () => {
    const weak =
      /(nodeIntegration\w*|webviewTag|allowRunningInsecureContent|experimentalFeatures)\s*:\s*true|(sandbox|contextIsolation|webSecurity)\s*:\s*false|bypassCSP\s*:\s*true|allowServiceWorkers\s*:\s*true/;
    expect(shellFiles.filter((f) => weak.test(read(f)))).toEqual([]);
  });

  it('keeps runtime Electron imports in the glue files only', () => {
    const importers = shellFiles.filter((f) => runtimeElectronImport.test(read(f)));
    expect(importers.every((f) => GLUE.has(f))).toBe(true);
    expect(importers).toEqual([...GLUE].filter((f) => importers.includes(f)));
    expect(importers).toContain('electron/main/window.ts');
  });

  it('calls shell.openExternal in one place, behind the https check', () => {
    const callers = shellFiles.filter((f) => /shell\.openExternal\(/.test(read(f)));
    expect(callers).toEqual(['electron/main/index.ts']);
    expect(read('electron/main/index.ts')).toMatch(
      /if \(isAllowedExternalUrl\(url\)\) void shell\.openExternal\(url\)/,
    );
  });

  it('exposes exactly one object from the preload and never ipcRenderer itself', () => {
    const preload = read('electron/preload/index.ts');
    expect(preload.match(/exposeInMainWorld\(/g)).toHaveLength(1);
    expect(preload).toContain(
      "contextBridge.exposeInMainWorld('sightline', createSightlineApi(ipcRenderer));",
    );
    expect(read('electron/preload/api.ts')).not.toMatch(runtimeElectronImport);
  });

  it('registers ipcMain handlers only through the wrapper', () => {
    const direct = shellFiles.filter((f) => /ipcMain\.(handle|on|once|handleOnce)\(/.test(read(f)));
    expect(direct).toEqual(['electron/main/ipc.ts']);
    expect(read('electron/main/index.ts')).toMatch(/registerIpcHandlers\(ipcMain,/);
  });
});
