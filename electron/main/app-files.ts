// Serving the renderer's files for the app:// protocol, as a pure function of (root, URL) so
// the path-traversal guard and the MIME table are unit-tested without Electron.
import fs from 'node:fs/promises';
import path from 'node:path';
import { APP_HOST, APP_SCHEME, CONTENT_SECURITY_POLICY } from './security';

const MIME_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
};

/** Unknown extensions are served as opaque bytes; with nosniff the browser will not run them. */
export function mimeTypeFor(filePath: string): string {
  return MIME_TYPES[path.extname(filePath).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * Maps a request URL to a file inside `root`, or undefined when the URL is not ours or would
 * leave `root`. `new URL` already folds `..` segments; the decoded path is checked again
 * because `%2f`, `%5c` and `%00` only become separators (or NULs) after decoding.
 */
export function resolveAppFile(root: string, requestUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(requestUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return undefined;
  let pathname: string;
  try {
    pathname = decodeURIComponent(url.pathname);
  } catch {
    return undefined;
  }
  if (pathname.includes('\0') || pathname.includes('\\')) return undefined;
  // A `..` that survived URL parsing was percent-encoded on purpose: no asset of ours has one.
  if (pathname.split('/').includes('..')) return undefined;
  if (pathname === '' || pathname.endsWith('/')) pathname += 'index.html';
  const base = path.resolve(root);
  const resolved = path.resolve(base, `.${path.posix.normalize(pathname)}`);
  return isInside(base, resolved) ? resolved : undefined;
}

function isInside(base: string, candidate: string): boolean {
  const rel = path.relative(base, candidate);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

export interface AppFileResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array<ArrayBuffer> | string;
}

/** Headers on every response, errors included, so a 404 page cannot run anything either. */
export function baseHeaders(): Record<string, string> {
  return {
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-cache',
  };
}

/**
 * Reads the file for `requestUrl` below `root`. Symlinks are resolved and checked again, so
 * a link inside out/renderer cannot point the protocol at the rest of the disk.
 */
export async function readAppFile(
  root: string,
  requestUrl: string,
  method = 'GET',
): Promise<AppFileResponse> {
  if (method !== 'GET' && method !== 'HEAD') return textResponse(405, 'Method Not Allowed');
  const file = resolveAppFile(root, requestUrl);
  if (!file) return textResponse(404, 'Not Found');
  try {
    const [realRoot, realFile] = await Promise.all([fs.realpath(root), fs.realpath(file)]);
    if (!isInside(realRoot, realFile)) return textResponse(404, 'Not Found');
    const stat = await fs.stat(realFile);
    if (!stat.isFile()) return textResponse(404, 'Not Found');
    const body = method === 'HEAD' ? '' : new Uint8Array(await fs.readFile(realFile));
    return { status: 200, headers: { ...baseHeaders(), 'Content-Type': mimeTypeFor(realFile) }, body };
  } catch {
    return textResponse(404, 'Not Found');
  }
}

function textResponse(status: number, text: string): AppFileResponse {
  return { status, headers: { ...baseHeaders(), 'Content-Type': 'text/plain; charset=utf-8' }, body: text };
}
