// Fetching from the ACP registry (the index, icons, agent archives): HTTPS only, every redirect
// hop checked again, a size limit enforced while reading (a Content-Length that says more is
// refused before the body), a timeout, and the SHA-256 of what arrived. Plain http is allowed only
// for loopback hosts and only when the caller says so explicitly (tests serve a local registry).
import { createHash } from 'node:crypto';
import fs from 'node:fs';

export interface FetchOptions {
  maxBytes: number;
  timeoutMs: number;
  /** Tests only: accept http:// for 127.0.0.1, ::1 and localhost. */
  allowLoopbackHttp?: boolean;
  /** Stream the body into this file instead of memory. */
  toFile?: string;
  /** The fetch implementation (default: Node's global fetch). */
  fetch?: typeof fetch;
}

export interface Fetched {
  /** The body (absent when written to a file). */
  body?: Buffer;
  size: number;
  sha256: string;
  /** Where the bytes came from after redirects. */
  finalUrl: string;
}

export class DownloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DownloadError';
  }
}

const MAX_REDIRECTS = 5;
const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** The URL if it may be fetched; throws a DownloadError that says why not. */
export function checkUrl(raw: string, allowLoopbackHttp = false): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DownloadError(`not a valid URL: ${raw.slice(0, 200)}`);
  }
  if (url.username || url.password) throw new DownloadError(`refused: ${url.host} URL carries credentials`);
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && allowLoopbackHttp && LOOPBACK.has(url.hostname)) return url;
  throw new DownloadError(`refused: ${url.origin} is not HTTPS (only HTTPS downloads are allowed)`);
}

/** 512 bytes, 12.5 KiB, 3.4 MiB. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${Math.round((n / 1024) * 10) / 10} KiB`;
  return `${Math.round((n / 1024 / 1024) * 10) / 10} MiB`;
}
const mib = formatBytes;

export async function fetchLimited(raw: string, opts: FetchOptions): Promise<Fetched> {
  const doFetch = opts.fetch ?? fetch;
  const signal = AbortSignal.timeout(opts.timeoutMs);
  let url = checkUrl(raw, opts.allowLoopbackHttp);
  let res: Response | undefined;
  for (let hop = 0; ; hop++) {
    try {
      res = await doFetch(url, { redirect: 'manual', signal });
    } catch (err) {
      const cause = signal.aborted ? `no answer within ${opts.timeoutMs / 1000} s` : describe(err);
      throw new DownloadError(`could not reach ${url.host}: ${cause}`);
    }
    if (res.status < 300 || res.status >= 400) break;
    const location = res.headers.get('location');
    await res.body?.cancel().catch(() => undefined);
    if (!location) throw new DownloadError(`${url.host} answered ${res.status} without a Location`);
    if (hop >= MAX_REDIRECTS) throw new DownloadError(`more than ${MAX_REDIRECTS} redirects from ${raw}`);
    url = checkUrl(new URL(location, url).href, opts.allowLoopbackHttp);
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => undefined);
    throw new DownloadError(`download of ${url.href} failed: HTTP ${res.status}`);
  }
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > opts.maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw new DownloadError(
      `${url.href} is ${mib(declared)}, more than the limit of ${mib(opts.maxBytes)}; nothing was saved`,
    );
  }
  const hash = createHash('sha256');
  const chunks: Buffer[] = [];
  const out = opts.toFile ? fs.openSync(opts.toFile, 'w', 0o600) : undefined;
  let size = 0;
  try {
    const reader = res.body?.getReader();
    for (;;) {
      let next: Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>> | undefined;
      try {
        next = await reader?.read();
      } catch (err) {
        const cause = signal.aborted ? `no answer within ${opts.timeoutMs / 1000} s` : describe(err);
        throw new DownloadError(`download of ${url.href} broke off after ${size} bytes: ${cause}`);
      }
      if (!next || next.done) break;
      const chunk = Buffer.from(next.value);
      size += chunk.length;
      if (size > opts.maxBytes) {
        await reader?.cancel().catch(() => undefined);
        throw new DownloadError(
          `${url.href} is larger than the limit of ${mib(opts.maxBytes)}; nothing was saved`,
        );
      }
      hash.update(chunk);
      if (out !== undefined) fs.writeSync(out, chunk);
      else chunks.push(chunk);
    }
    if (Number.isFinite(declared) && declared !== size)
      throw new DownloadError(`download of ${url.href} is incomplete: ${size} of ${declared} bytes`);
    if (out !== undefined) fs.fsyncSync(out);
  } catch (err) {
    if (out !== undefined) {
      fs.closeSync(out);
      fs.rmSync(opts.toFile!, { force: true });
    }
    throw err;
  }
  if (out !== undefined) fs.closeSync(out);
  return {
    ...(out === undefined ? { body: Buffer.concat(chunks) } : {}),
    size,
    sha256: hash.digest('hex'),
    finalUrl: url.href,
  };
}

/** The system error code (ECONNREFUSED, ENOTFOUND…) when there is one, else the message. */
function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.code && /^E[A-Z0-9_]+$/.test(cause.code)) return cause.code;
  return cause?.message ?? (err instanceof Error ? err.message : String(err));
}
