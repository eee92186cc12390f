// The browser suites' one opening (test/e2e, and the benches that drive the UI): build the renderer
// once (guarded by a lock, rebuilt when sources are newer), start browser mode in-process on port 0
// with a fresh data dir, drive Debian's Chromium. No vitest here (the benches use it too); the
// suites' shared opening is app-in-browser.ts.
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { Gateway, GatewayOptions } from '../../electron/gateway/index';
import type { GatewayHost } from '../../electron/gateway/host';
import { startBrowserMode } from '../../electron/web/app';
import type { WebServer } from '../../electron/web/server';
import { buildOnce } from './build-once';
import { tempDir } from './temp';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const RENDERER_DIR = path.join(ROOT, 'out/renderer');
const LOCK = path.join(ROOT, 'out/.renderer-build.lock');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

function rendererIsFresh(): boolean {
  const index = path.join(RENDERER_DIR, 'index.html');
  if (!fs.existsSync(index)) return false;
  const sources = Math.max(newestMtime(path.join(ROOT, 'renderer')), newestMtime(path.join(ROOT, 'shared')));
  return fs.statSync(index).mtimeMs >= sources;
}

/** Builds out/renderer with vite when it is missing or older than its sources. */
export async function ensureRenderer(): Promise<void> {
  await buildOnce(LOCK, rendererIsFresh, async () => {
    const { build } = await import('vite');
    // Under vitest NODE_ENV is "test", which would bundle React's development build.
    const nodeEnv = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      await build({
        configFile: path.join(ROOT, 'renderer/vite.config.ts'),
        mode: 'production',
        logLevel: 'warn',
      });
    } finally {
      process.env.NODE_ENV = nodeEnv;
    }
  });
}

export interface App {
  /** The current gateway (a restore from Settings swaps it). */
  readonly gateway: Gateway;
  host: GatewayHost;
  server: WebServer;
  dataDir: string;
  catalogRoot: string;
  close(): Promise<void>;
}

export interface StartAppOptions {
  prepare?: (dataDir: string) => void;
  gateway?: Partial<GatewayOptions>;
}

/**
 * Browser mode as `npm run web` starts it (startBrowserMode: the gateway host with damage
 * recovery and restores), on port 0 with a fresh data dir and empty catalog roots. `prepare`
 * may put files into the data dir first (a damaged database, backups).
 */
export async function startApp(opts: StartAppOptions = {}): Promise<App> {
  const dataDir = tempDir('sightline-e2e-data-');
  const catalogRoot = tempDir('sightline-e2e-catalog-');
  const roots = Object.fromEntries(
    ['claude', 'codex', 'opencode', 'pi'].map((p) => {
      const dir = path.join(catalogRoot, p);
      fs.mkdirSync(dir, { recursive: true });
      return [p, dir];
    }),
  );
  opts.prepare?.(dataDir);
  const app = await startBrowserMode({
    dataDir,
    rendererDir: RENDERER_DIR,
    version: 'e2e',
    gateway: { catalogRoots: roots, ...opts.gateway },
  });
  return {
    get gateway() {
      return app.host.gateway;
    },
    host: app.host,
    server: app.server,
    dataDir,
    catalogRoot,
    async close() {
      await app.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      fs.rmSync(catalogRoot, { recursive: true, force: true });
    },
  };
}

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/** Chromium with a fresh user-data dir; page errors fail loudly through `errors`. */
export async function openBrowser(url: string): Promise<Browser & { errors: string[] }> {
  const profile = tempDir('sightline-e2e-chromium-');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
    viewport: { width: 1400, height: 860 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  await page.goto(url);
  await page.locator('[data-testid="app"][data-ready="true"]').waitFor();
  return {
    context,
    page,
    errors,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}
