// The renderer's built files (out/renderer), served by Electron's app:// protocol
// (main/protocol.ts) and by browser mode (web/server.ts) through this one module: one MIME table,
// one path guard, one reader, tested once (test/web/renderer-files.test.ts). Each transport adds
// its own Content-Security-Policy and caching headers. Pure Node.
import fs from 'node:fs/promises';
import path from 'node:path';

export const MIME_TYPES: Readonly<Record<string, string>> = {
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

/** The type of a file we serve; undefined for any other extension (those are never served). */
export function mimeTypeFor(file: string): string | undefined {
  return MIME_TYPES[path.extname(file).toLowerCase()];
}

/**
 * The file under `root` that a URL path names (still percent-encoded, as `URL.pathname` gives
 * it), or undefined. Refused: anything undecodable; encoded separators and NULs (`%2f`, `%5c`,
 * `%00`), which only become separators after decoding; backslashes; `.`/`..` or empty segments
 * (a URL parser folds literal dot segments, so what is left was encoded on purpose, and no asset
 * of ours has one); extensions outside the MIME table; anything resolving outside `root`.
 * A path ending in `/` names its index.html.
 */
export function resolveRendererPath(root: string, urlPath: string | undefined): string | undefined {
  if (!urlPath || urlPath[0] !== '/' || /%(2f|5c|00)/i.test(urlPath)) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const segments = decoded.split('/').slice(1);
  if (segments.some((s, i) => s === '.' || s === '..' || (s === '' && i < segments.length - 1)))
    return undefined;
  const rel = decoded.endsWith('/') ? `${decoded}index.html` : decoded;
  if (!mimeTypeFor(rel)) return undefined;
  const base = path.resolve(root);
  const full = path.resolve(base, `.${rel}`);
  return isInside(base, full) ? full : undefined;
}

function isInside(base: string, candidate: string): boolean {
  const rel = path.relative(base, candidate);
  return rel !== '' && !rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel);
}

export interface RendererFileResponse {
  status: 200 | 404 | 405;
  /** Content-Type and nosniff; the transport adds CSP and caching. */
  headers: Record<string, string>;
  body: Uint8Array<ArrayBuffer>;
}

/**
 * Reads the file a GET or HEAD names. Symlinks are resolved and checked again, so a link inside
 * the renderer folder cannot point at the rest of the disk; directories and missing files are 404.
 */
export async function readRendererFile(
  root: string,
  urlPath: string | undefined,
  method = 'GET',
): Promise<RendererFileResponse> {
  if (method !== 'GET' && method !== 'HEAD') return textResponse(405, 'Method Not Allowed');
  const file = resolveRendererPath(root, urlPath);
  if (!file) return textResponse(404, 'Not Found');
  try {
    const [realRoot, realFile] = await Promise.all([fs.realpath(root), fs.realpath(file)]);
    const type = mimeTypeFor(realFile);
    if (!isInside(realRoot, realFile) || !type) return textResponse(404, 'Not Found');
    if (!(await fs.stat(realFile)).isFile()) return textResponse(404, 'Not Found');
    const body = method === 'HEAD' ? new Uint8Array(0) : new Uint8Array(await fs.readFile(realFile));
    return { status: 200, headers: { 'Content-Type': type, 'X-Content-Type-Options': 'nosniff' }, body };
  } catch {
    return textResponse(404, 'Not Found');
  }
}

function textResponse(status: 404 | 405, text: string): RendererFileResponse {
  return {
    status,
    headers: { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' },
    body: new TextEncoder().encode(text),
  };
}
