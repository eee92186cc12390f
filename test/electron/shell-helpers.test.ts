import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WebContents } from 'electron';
import { hardenWebContents } from '../../electron/main/guards';
import {
  chooseNativeBinding,
  mcpShimPath,
  nativeBindingPath,
  nativeDirName,
} from '../../electron/main/native-binding';
import { createShutdown } from '../../electron/main/shutdown';

describe('hardenWebContents', () => {
  function fakeContents() {
    const handlers = new Map<string, (event: { url: string; preventDefault(): void }) => void>();
    let openHandler: ((d: { url: string }) => { action: string }) | undefined;
    const contents = {
      on(name: string, fn: (event: { url: string; preventDefault(): void }) => void) {
        handlers.set(name, fn);
        return contents;
      },
      setWindowOpenHandler(fn: (d: { url: string }) => { action: string }) {
        openHandler = fn;
      },
    };
    const fire = (name: string, url: string) => {
      let prevented = false;
      handlers.get(name)!({ url, preventDefault: () => (prevented = true) });
      return prevented;
    };
    return { contents, handlers, fire, open: (url: string) => openHandler!({ url }) };
  }

  it('stops navigation away from the app, hands https to the browser, blocks webviews, denies windows', () => {
    const fake = fakeContents();
    const opened: string[] = [];
    hardenWebContents(fake.contents as unknown as WebContents, (u) => opened.push(u));
    expect([...fake.handlers.keys()].sort()).toEqual([
      'will-attach-webview',
      'will-frame-navigate',
      'will-navigate',
      'will-redirect',
    ]);
    expect(fake.fire('will-navigate', 'app://sightline/index.html')).toBe(false);
    expect(fake.fire('will-navigate', 'https://example.com/')).toBe(true);
    expect(fake.fire('will-frame-navigate', 'javascript:alert(1)')).toBe(true);
    expect(fake.fire('will-redirect', 'http://example.com/')).toBe(true);
    expect(fake.fire('will-attach-webview', 'app://sightline/')).toBe(true);
    expect(fake.open('https://docs.example.com/')).toEqual({ action: 'deny' });
    expect(fake.open('file:///etc/passwd')).toEqual({ action: 'deny' });
    expect(opened).toEqual(['https://example.com/', 'https://docs.example.com/']);
  });

  it('attaches once per WebContents', () => {
    const fake = fakeContents();
    const opened: string[] = [];
    hardenWebContents(fake.contents as unknown as WebContents, (u) => opened.push(u));
    hardenWebContents(fake.contents as unknown as WebContents, (u) => opened.push(u));
    fake.open('https://example.com/');
    expect(opened).toEqual(['https://example.com/']);
  });
});

describe('native binding location', () => {
  it('names the folder by ABI, platform and arch, unpacked next to app.asar when packaged', () => {
    expect(nativeDirName('150', 'linux', 'x64')).toBe('electron-150-linux-x64');
    expect(nativeBindingPath('/src/sightline', '150', 'linux', 'x64')).toBe(
      path.join('/src/sightline', 'out', 'native', 'electron-150-linux-x64', 'better_sqlite3.node'),
    );
    expect(nativeBindingPath('/opt/Sightline/resources/app.asar', '150', 'linux', 'arm64')).toBe(
      path.join(
        '/opt/Sightline/resources/app.asar.unpacked',
        'out',
        'native',
        'electron-150-linux-arm64',
        'better_sqlite3.node',
      ),
    );
  });

  it('finds the stdio MCP shim unpacked next to app.asar, where a plain node can read it', () => {
    expect(mcpShimPath('/src/sightline')).toBe(path.join('/src/sightline', 'out', 'mcp', 'stdio-shim.mjs'));
    expect(mcpShimPath('/opt/Sightline/resources/app.asar')).toBe(
      path.join('/opt/Sightline/resources/app.asar.unpacked', 'out', 'mcp', 'stdio-shim.mjs'),
    );
  });

  const runtime = { abi: '150', platform: 'linux', arch: 'x64' };
  const dev = { isPackaged: false, getAppPath: () => '/src/sightline' };
  const packaged = { isPackaged: true, getAppPath: () => '/opt/Sightline/resources/app.asar' };
  const devBuild = nativeBindingPath('/src/sightline', '150', 'linux', 'x64');
  const packagedBuild = nativeBindingPath('/opt/Sightline/resources/app.asar', '150', 'linux', 'x64');
  const env = { SIGHTLINE_SQLITE_BINDING: '/tmp/any-addon.node' };

  it('in a development build prefers SIGHTLINE_SQLITE_BINDING, then an existing Electron build', () => {
    expect(chooseNativeBinding(dev, env, runtime, () => false)).toEqual({
      path: '/tmp/any-addon.node',
      source: 'env',
    });
    expect(chooseNativeBinding(dev, {}, runtime, (f) => f === devBuild)).toEqual({
      path: devBuild,
      source: 'electron-build',
    });
    expect(chooseNativeBinding(dev, { SIGHTLINE_SQLITE_BINDING: '' }, runtime, () => false)).toEqual({
      source: 'none',
      warning: `no Electron build of better-sqlite3 at ${devBuild}; run npm start to build it`,
    });
  });

  it('in a packaged app ignores SIGHTLINE_SQLITE_BINDING and loads only its own unpacked build', () => {
    expect(chooseNativeBinding(packaged, env, runtime, (f) => f === packagedBuild)).toEqual({
      path: packagedBuild,
      source: 'electron-build',
      warning: 'SIGHTLINE_SQLITE_BINDING is ignored in a packaged app',
    });
    expect(chooseNativeBinding(packaged, {}, runtime, (f) => f === packagedBuild)).toEqual({
      path: packagedBuild,
      source: 'electron-build',
    });
    // Even when its own build is missing, the variable is not a fallback: start-up stops.
    expect(() => chooseNativeBinding(packaged, env, runtime, () => false)).toThrow(
      `The Electron build of better-sqlite3 is missing at ${packagedBuild}: the package is incomplete.`,
    );
  });

  it('matches the folder name the build script writes', async () => {
    const script = await import('../../scripts/native-sqlite.mjs');
    expect(script.nativeDirName('150', 'darwin', 'arm64')).toBe(nativeDirName('150', 'darwin', 'arm64'));
  });
});

describe('createShutdown', () => {
  it('runs every step once, in order, even when one fails', () => {
    const ran: string[] = [];
    const errors: string[] = [];
    const shutdown = createShutdown(
      [
        ['a', () => ran.push('a')],
        [
          'b',
          () => {
            throw new Error('b failed');
          },
        ],
        ['gateway', () => ran.push('gateway')],
      ],
      (name, err) => errors.push(`${name}: ${(err as Error).message}`),
    );
    expect(shutdown.done).toBe(false);
    shutdown.run();
    shutdown.run();
    expect(ran).toEqual(['a', 'gateway']);
    expect(errors).toEqual(['b: b failed']);
    expect(shutdown.done).toBe(true);
  });
});

describe('native build ABI guard', () => {
  it('reads the ABI of a headers folder and of a compiled addon', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const { addonAbi, headersAbi } = await import('../../scripts/native-sqlite.mjs');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-abi-'));
    try {
      fs.mkdirSync(path.join(dir, 'include', 'node'), { recursive: true });
      fs.writeFileSync(
        path.join(dir, 'include', 'node', 'node_version.h'),
        '#define NODE_MODULE_VERSION NODE_EMBEDDER_MODULE_VERSION\n#else\n#define NODE_MODULE_VERSION 115\n',
      );
      fs.writeFileSync(
        path.join(dir, 'addon.node'),
        Buffer.from('\x7fELF\0\0node_register_module_v150\0rest'),
      );
      expect(headersAbi(dir)).toBe('115');
      expect(headersAbi(path.join(dir, 'missing'))).toBeUndefined();
      expect(addonAbi(path.join(dir, 'addon.node'))).toBe('150');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
