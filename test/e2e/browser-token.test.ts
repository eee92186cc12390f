// Browser mode's token stays with its page (issue 14.2): it travels in the URL fragment, lives in
// the tab's sessionStorage, and reaches the server only in the WebSocket upgrade. No cookie, so
// another server on 127.0.0.1 (cookies are not scoped by port) never receives it.
import http from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import type { App, Browser } from './helpers';
import { useAppInBrowser } from '../helpers/app-in-browser';

let app: App;
let browser: Browser;
let other: http.Server;
let otherPort = 0;
const seen: Array<{ url: string; cookie: string | undefined; referer: string | undefined }> = [];

afterAll(async () => {
  await new Promise((r) => other.close(r));
});

useAppInBrowser((s) => ({ app, browser } = s), {
  seed: async () => {
    other = http.createServer((req, res) => {
      seen.push({ url: req.url ?? '', cookie: req.headers.cookie, referer: req.headers.referer });
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('another loopback server');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    otherPort = (other.address() as { port: number }).port;
  },
});

describe('browser mode token', () => {
  it('is printed in the URL fragment, moved into sessionStorage and out of the address bar', async () => {
    expect(app.server.url).toBe(`http://127.0.0.1:${app.server.port}/#token=${app.server.token}`);
    const { page } = browser;
    // The token leaves the address bar; what stays names the open view (a reload comes back to it).
    expect(page.url()).toBe(`http://127.0.0.1:${app.server.port}/#view=session`);
    expect(await page.evaluate(() => sessionStorage.getItem('sightline.token'))).toBe(app.server.token);
    expect(await browser.context.cookies()).toEqual([]);
  });

  it('is never sent to another server on 127.0.0.1', async () => {
    const { page } = browser;
    await page.goto(`http://127.0.0.1:${otherPort}/after-sightline`);
    expect(await page.textContent('body')).toBe('another loopback server');
    expect(seen.filter((r) => r.url !== '/favicon.ico')).toEqual([
      { url: '/after-sightline', cookie: undefined, referer: undefined },
    ]);
    expect(seen.every((r) => r.cookie === undefined)).toBe(true);
    await page.goBack();
    await page.locator('[data-testid="app"][data-ready="true"]').waitFor();
  });

  it('survives a reload: the page reconnects with the token from sessionStorage', async () => {
    const { page } = browser;
    await page.reload();
    await page.locator('[data-testid="app"][data-ready="true"]').waitFor();
    // The token leaves the address bar; what stays names the open view (a reload comes back to it).
    expect(page.url()).toBe(`http://127.0.0.1:${app.server.port}/#view=session`);
    const snapshot = await page.evaluate(async (port) => {
      const token = sessionStorage.getItem('sightline.token') ?? '';
      const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${encodeURIComponent(token)}`);
      return new Promise<unknown>((resolve) => {
        ws.onopen = () => ws.send(JSON.stringify({ id: 1, channel: 'app:info', args: {} }));
        ws.onmessage = (ev) => resolve(JSON.parse(String(ev.data)));
        ws.onerror = () => resolve('refused');
      });
    }, app.server.port);
    expect(snapshot).toMatchObject({ type: 'result', id: 1, result: { ok: true, value: { mode: 'web' } } });
  });

  it('is not in another tab that opens the page without it: its upgrade is refused', async () => {
    const page = await browser.context.newPage();
    await page.goto(`http://127.0.0.1:${app.server.port}/`);
    const result = await page.evaluate(async (port) => {
      const token = sessionStorage.getItem('sightline.token');
      const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${encodeURIComponent(token ?? '')}`);
      return new Promise<string>((resolve) => {
        ws.onopen = () => resolve(`open (${token})`);
        ws.onerror = () => resolve(`refused (${token})`);
      });
    }, app.server.port);
    expect(result).toBe('refused (null)');
    await page.close();
  });
});
