// Unpacking an agent archive from the registry (.tar.gz and .zip, the formats its entries use)
// into one folder, as hostile input: no entry may land outside the folder (absolute paths, `..`,
// drive letters, backslashes, NUL), no hard links or device files, symbolic links only to a place
// inside the folder (resolved through chains) and created last (so nothing is ever written
// through one), setuid bits dropped, entry count, unpacked size and ratio bounded, and a damaged
// archive (bad gzip stream, header checksum, CRC mismatch, truncated entry) refused.
// The formats are read by the unpackers npm itself trusts (`tar`, `yauzl`); the rules are ours
// (archive-rules.ts). It all runs on a worker thread of its own, with a memory and a time limit:
// a zip bomb or a maze of entries costs that thread, never the gateway's main thread, which keeps
// answering the person and the agents meanwhile (test/acp/archive-thread.test.ts).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ArchiveError, DEFAULT_LIMITS, type Extracted, type ExtractLimits } from './archive-rules';
import type { ArchiveKind, UnpackAnswer, UnpackRequest } from './archive-unpack';

export {
  ArchiveError,
  DEFAULT_LIMITS,
  safeEntryPath,
  type Extracted,
  type ExtractLimits,
} from './archive-rules';
export type { ArchiveKind } from './archive-unpack';

/** Longer than any honest agent archive takes to unpack; then the thread is stopped. */
export const UNPACK_TIMEOUT_MS = 5 * 60_000;
/** The worker's heap: archives stream through it, so a bomb that tries to fill memory ends here. */
const WORKER_HEAP_MB = 256;

/** The format from the archive URL's path. */
export function archiveKind(url: string): ArchiveKind {
  const p = new URL(url).pathname.toLowerCase();
  if (p.endsWith('.tar.gz') || p.endsWith('.tgz')) return 'tar.gz';
  if (p.endsWith('.zip')) return 'zip';
  throw new ArchiveError(`unsupported archive format: ${path.posix.basename(p)} (expected .tar.gz or .zip)`);
}

/**
 * The worker's script. In the main bundle (out/main/main.cjs) it is the worker bundle the build
 * writes to out/worker/, unpacked beside app.asar in the packaged app. From source (tests, browser
 * mode) it is the TypeScript file beside this one: Node 20 loads a worker's first file before any
 * `--import` hook, so a two-line bootstrap registers tsx and then imports it.
 */
function workerScript(): { code: string | URL; eval?: true } {
  if (typeof __filename === 'string' && __filename.endsWith('.cjs')) {
    const file = path.join(path.dirname(__filename), '..', 'worker', 'archive-worker.cjs');
    return { code: file.replace(`app.asar${path.sep}`, `app.asar.unpacked${path.sep}`) };
  }
  const tsx = pathToFileURL(tsxEsmApi()).href;
  const source = new URL('./archive-worker.ts', import.meta.url).href;
  return {
    code: `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}); });`,
    eval: true,
  };
}

/** tsx's ESM API (its `import` export; the `require` one cannot be imported from a worker). */
function tsxEsmApi(): string {
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
  const { exports } = JSON.parse(fs.readFileSync(manifest, 'utf8')) as {
    exports: Record<string, { import: { default: string } }>;
  };
  return path.join(path.dirname(manifest), exports['./esm/api']!.import.default);
}

/** Unpacks `file` into `dest` (created) on a worker thread, under the rules above; throws ArchiveError. */
export function extract(
  file: string,
  kind: ArchiveKind,
  dest: string,
  limits: ExtractLimits = DEFAULT_LIMITS,
  timeoutMs = UNPACK_TIMEOUT_MS,
): Promise<Extracted> {
  const script = workerScript();
  const worker = new Worker(script.code, {
    ...(script.eval ? { eval: true } : {}),
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
  });
  return new Promise<Extracted>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new ArchiveError(`unpacking took longer than ${timeoutMs / 1000} s: stopped`));
      void worker.terminate();
    }, timeoutMs);
    worker.once('message', (answer: UnpackAnswer) => {
      if (answer.ok) resolve(answer.extracted);
      else reject(answer.archive ? new ArchiveError(answer.message) : new Error(answer.message));
    });
    worker.once('error', (err: Error & { code?: string }) =>
      reject(
        err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new ArchiveError(`the archive needs more than ${WORKER_HEAP_MB} MiB of memory to unpack: refused`)
          : err,
      ),
    );
    worker.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the unpacking thread ended (exit code ${code}) without an answer`));
    });
    worker.postMessage({ file, kind, dest, limits } satisfies UnpackRequest);
  });
}
