// Serving the built renderer: a fixed MIME table, no directory traversal, no listings.
import fs from 'node:fs/promises';
import path from 'node:path';

export const MIME: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** The file under `root` that `urlPath` names, or undefined when it escapes root or is odd. */
export function resolveStatic(root: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const rel = decoded === '/' ? 'index.html' : decoded.replace(/^\/+/, '');
  const base = path.resolve(root);
  const full = path.resolve(base, rel);
  if (full !== base && !full.startsWith(base + path.sep)) return undefined;
  if (!MIME[path.extname(full).toLowerCase()]) return undefined;
  return full;
}

export async function readStatic(file: string): Promise<{ body: Buffer; type: string } | undefined> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) return undefined;
    return { body: await fs.readFile(file), type: MIME[path.extname(file).toLowerCase()]! };
  } catch {
    return undefined;
  }
}
