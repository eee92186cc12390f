import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mimeTypeFor, readAppFile, resolveAppFile } from '../../electron/main/app-files';
import { CONTENT_SECURITY_POLICY } from '../../electron/main/security';

let base: string;
let root: string;

beforeAll(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-app-files-'));
  root = path.join(base, 'renderer');
  fs.mkdirSync(path.join(root, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>Sightline</title>');
  fs.writeFileSync(path.join(root, 'assets', 'app.js'), 'console.log(1)');
  fs.writeFileSync(path.join(root, 'assets', 'my file.css'), 'body{}');
  fs.writeFileSync(path.join(base, 'secret.txt'), 'outside');
  fs.symlinkSync(path.join(base, 'secret.txt'), path.join(root, 'assets', 'link.txt'));
});

afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe('resolveAppFile', () => {
  it('maps app://sightline paths into the root, / to index.html', () => {
    expect(resolveAppFile(root, 'app://sightline/')).toBe(path.join(root, 'index.html'));
    expect(resolveAppFile(root, 'app://sightline/assets/app.js')).toBe(path.join(root, 'assets', 'app.js'));
    expect(resolveAppFile(root, 'app://sightline/assets/my%20file.css')).toBe(
      path.join(root, 'assets', 'my file.css'),
    );
    expect(resolveAppFile(root, 'app://sightline/assets/app.js?v=1#x')).toBe(
      path.join(root, 'assets', 'app.js'),
    );
  });

  it.each([
    'app://sightline/../secret.txt',
    'app://sightline/%2e%2e/secret.txt',
    'app://sightline/..%2fsecret.txt',
    'app://sightline/assets/..%2f..%2fsecret.txt',
    'app://sightline/..%5csecret.txt',
    'app://sightline/index.html%00.js',
    'app://sightline/%E0%A4%A',
    'app://other/index.html',
    'https://sightline/index.html',
    'file:///etc/passwd',
    'not a url',
  ])('refuses %s', (url) => {
    const resolved = resolveAppFile(root, url);
    // `..` segments are folded by the URL parser itself; what remains must still be inside root.
    if (resolved !== undefined) expect(resolved.startsWith(root + path.sep)).toBe(true);
    expect(resolved === path.join(base, 'secret.txt')).toBe(false);
  });

  it('returns undefined for anything that decodes to a separator, a NUL or leaves the root', () => {
    expect(resolveAppFile(root, 'app://sightline/..%2fsecret.txt')).toBeUndefined();
    expect(resolveAppFile(root, 'app://sightline/assets/..%2f..%2fsecret.txt')).toBeUndefined();
    expect(resolveAppFile(root, 'app://sightline/..%5csecret.txt')).toBeUndefined();
    expect(resolveAppFile(root, 'app://sightline/index.html%00.js')).toBeUndefined();
    expect(resolveAppFile(root, 'app://sightline/%E0%A4%A')).toBeUndefined();
    expect(resolveAppFile(root, 'app://other/index.html')).toBeUndefined();
    // The URL parser folds the `..`: this is index.html-less `/secret.txt` inside root.
    expect(resolveAppFile(root, 'app://sightline/../secret.txt')).toBe(path.join(root, 'secret.txt'));
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
    ['a.exe', 'application/octet-stream'],
    ['noext', 'application/octet-stream'],
  ])('%s → %s', (file, type) => expect(mimeTypeFor(file)).toBe(type));
});

describe('readAppFile', () => {
  it('serves a file with its type, the CSP and nosniff', async () => {
    const r = await readAppFile(root, 'app://sightline/assets/app.js');
    expect(r.status).toBe(200);
    expect(Buffer.from(r.body).toString()).toBe('console.log(1)');
    expect(r.headers).toEqual({
      'Content-Type': 'text/javascript; charset=utf-8',
      'Content-Security-Policy': CONTENT_SECURITY_POLICY,
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-cache',
    });
  });

  it('serves index.html for the origin root', async () => {
    const r = await readAppFile(root, 'app://sightline/');
    expect(r.status).toBe(200);
    expect(r.headers['Content-Type']).toBe('text/html; charset=utf-8');
  });

  it('404s traversal, missing files, directories and symlinks leading out of the root', async () => {
    for (const url of [
      'app://sightline/..%2fsecret.txt',
      'app://sightline/missing.js',
      'app://sightline/assets',
      'app://sightline/assets/link.txt',
    ]) {
      const r = await readAppFile(root, url);
      expect([url, r.status, r.body]).toEqual([url, 404, 'Not Found']);
      expect(r.headers['Content-Security-Policy']).toBe(CONTENT_SECURITY_POLICY);
    }
  });

  it('answers HEAD without a body and refuses other methods', async () => {
    const head = await readAppFile(root, 'app://sightline/index.html', 'HEAD');
    expect([head.status, head.body]).toEqual([200, '']);
    const post = await readAppFile(root, 'app://sightline/index.html', 'POST');
    expect(post.status).toBe(405);
  });
});
