// The one module that serves the renderer's files to Electron's app:// protocol and to browser
// mode: MIME table and path guard (traversal, encoded separators, NUL, symlinks), tested once.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mimeTypeFor, readRendererFile, resolveRendererPath } from '../../electron/web/renderer-files';

let base: string;
let root: string;

beforeAll(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-renderer-files-'));
  root = path.join(base, 'renderer');
  fs.mkdirSync(path.join(root, 'assets', 'dir.js'), { recursive: true });
  fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>Sightline</title>');
  fs.writeFileSync(path.join(root, 'assets', 'app.js'), 'console.log(1)');
  fs.writeFileSync(path.join(root, 'assets', 'my file.css'), 'body{}');
  fs.writeFileSync(path.join(root, 'assets', 'tool.exe'), 'MZ');
  fs.writeFileSync(path.join(base, 'secret.txt'), 'outside');
  fs.symlinkSync(path.join(base, 'secret.txt'), path.join(root, 'assets', 'link.txt'));
  fs.symlinkSync(base, path.join(root, 'up'));
});

afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe('resolveRendererPath', () => {
  it('maps URL paths into the root, a trailing / to its index.html, percent-decoded', () => {
    expect(resolveRendererPath(root, '/')).toBe(path.join(root, 'index.html'));
    expect(resolveRendererPath(root, '/index.html')).toBe(path.join(root, 'index.html'));
    expect(resolveRendererPath(root, '/assets/app.js')).toBe(path.join(root, 'assets', 'app.js'));
    expect(resolveRendererPath(root, '/assets/my%20file.css')).toBe(path.join(root, 'assets', 'my file.css'));
    expect(resolveRendererPath(root, '/assets/')).toBe(path.join(root, 'assets', 'index.html'));
  });

  it.each([
    ['literal dot-dot', '/../secret.txt'],
    ['encoded dot-dot', '/%2e%2e/secret.txt'],
    ['encoded dot', '/assets/%2e/app.js'],
    ['encoded slash', '/..%2fsecret.txt'],
    ['encoded slash inside the root', '/assets%2fapp.js'],
    ['encoded slash, upper case', '/assets%2Fapp.js'],
    ['two encoded slashes up', '/assets/..%2f..%2fsecret.txt'],
    ['encoded backslash', '/..%5csecret.txt'],
    ['literal backslash', '/assets\\app.js'],
    ['encoded NUL', '/index.html%00.js'],
    ['literal NUL', '/index.html\0.js'],
    ['undecodable', '/%E0%A4%A'],
    ['empty segment', '/assets//app.js'],
    ['not a path', 'assets/app.js'],
    ['empty', ''],
    ['unknown type', '/assets/tool.exe'],
    ['no extension', '/assets/README'],
  ])('refuses %s (%s)', (_name, urlPath) => {
    expect(resolveRendererPath(root, urlPath)).toBeUndefined();
  });

  it('refuses undefined (a URL of another scheme or host upstream)', () => {
    expect(resolveRendererPath(root, undefined)).toBeUndefined();
  });
});

describe('mimeTypeFor', () => {
  it.each([
    ['index.html', 'text/html; charset=utf-8'],
    ['a.js', 'text/javascript; charset=utf-8'],
    ['a.mjs', 'text/javascript; charset=utf-8'],
    ['a.CSS', 'text/css; charset=utf-8'],
    ['a.svg', 'image/svg+xml'],
    ['a.woff2', 'font/woff2'],
    ['a.wasm', 'application/wasm'],
    ['a.exe', undefined],
    ['noext', undefined],
  ])('%s → %s', (file, type) => expect(mimeTypeFor(file)).toBe(type));
});

describe('readRendererFile', () => {
  const text = (body: Uint8Array) => Buffer.from(body).toString();

  it('serves a file with its type and nosniff', async () => {
    const r = await readRendererFile(root, '/assets/app.js');
    expect([r.status, text(r.body)]).toEqual([200, 'console.log(1)']);
    expect(r.headers).toEqual({
      'Content-Type': 'text/javascript; charset=utf-8',
      'X-Content-Type-Options': 'nosniff',
    });
  });

  it('serves index.html for the root path', async () => {
    const r = await readRendererFile(root, '/');
    expect([r.status, r.headers['Content-Type']]).toEqual([200, 'text/html; charset=utf-8']);
  });

  it('404s traversal, missing files, directories and symlinks leading out of the root', async () => {
    for (const urlPath of [
      '/..%2fsecret.txt',
      '/missing.js',
      '/assets/dir.js',
      '/assets/link.txt',
      '/up/secret.txt',
      undefined,
    ]) {
      const r = await readRendererFile(root, urlPath);
      expect([urlPath, r.status, text(r.body)]).toEqual([urlPath, 404, 'Not Found']);
      expect(r.headers['X-Content-Type-Options']).toBe('nosniff');
    }
  });

  it('answers HEAD without a body and refuses other methods with 405', async () => {
    const head = await readRendererFile(root, '/index.html', 'HEAD');
    expect([head.status, head.body.length]).toEqual([200, 0]);
    const post = await readRendererFile(root, '/index.html', 'POST');
    expect([post.status, text(post.body)]).toEqual([405, 'Method Not Allowed']);
  });
});
