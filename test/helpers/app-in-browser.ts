// The opening most browser suites share: the app in browser mode and Chromium on it before the
// file's tests, both closed after them (browser-app.ts holds the pieces).
import type { Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import {
  ensureRenderer,
  openBrowser,
  startApp,
  type App,
  type Browser,
  type StartAppOptions,
} from './browser-app';

export interface AppInBrowser {
  app: App;
  browser: Browser & { errors: string[] };
  page: Page;
}

export interface AppInBrowserOptions {
  /** startApp's options; a function when they name what an earlier beforeAll started (a server). */
  start?: StartAppOptions | (() => StartAppOptions);
  /** What the page must find when it first loads (profiles, sessions, files), put in before it does. */
  seed?: (app: App) => void | Promise<void>;
  /** The opening's budget (default 120 s: the first suite may build the renderer). */
  timeoutMs?: number;
}

/**
 * Registers the suite's opening: the renderer built, the app started and seeded, Chromium on its
 * URL; after the file, the browser closes, then the app. `opened` hands the three to the suite's
 * variables. Servers the app needs first (a registry, a model stand-in, sshd) are the suite's own
 * beforeAll/afterAll, registered before this call: vitest runs after-hooks in reverse order, so
 * they close after the app.
 */
export function useAppInBrowser(opened: (s: AppInBrowser) => void, opts: AppInBrowserOptions = {}): void {
  let app: App | undefined;
  let browser: (Browser & { errors: string[] }) | undefined;
  beforeAll(async () => {
    await ensureRenderer();
    app = await startApp(typeof opts.start === 'function' ? opts.start() : opts.start);
    await opts.seed?.(app);
    browser = await openBrowser(app.server.url);
    opened({ app, browser, page: browser.page });
  }, opts.timeoutMs ?? 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });
}
