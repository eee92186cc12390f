// Archives are unpacked off the gateway's main thread (issue 29.4), by `tar` and `yauzl` under our
// rules: a 2 MB tar.gz that inflates to 2 GiB is refused while browser mode keeps answering the
// person over its real WebSocket; hostile archives (lying sizes, bad checksums, truncation, pax
// paths, too many entries) fail cleanly with one clear message; and the worker bundle that
// `npm run build:electron` ships does the same on its own.
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createRequire } from 'node:module';
import * as esbuild from 'esbuild';
// @ts-expect-error -- a plain .mjs script without types
import { buildArchiveWorker, common } from '../../scripts/build-electron.mjs';
import { extract, type ExtractLimits } from '../../electron/gateway/installers/archive';
import type { UnpackAnswer } from '../../electron/gateway/installers/archive-unpack';
import { startWebServer } from '../../electron/web/server';
import { openTestGateway, tempDir } from '../helpers/gateway';
import { tar, tarGz, tarGzBomb, zip, zipBomb } from '../helpers/archives';
import { serveFixtureRegistry, startRegistryServer } from '../helpers/registry-server';

const GiB = 1024 * 1024 * 1024;
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function ping(ws: WebSocket, id: number): Promise<unknown> {
  return new Promise((resolve) => {
    const on = (data: WebSocket.RawData) => {
      const m = JSON.parse(data.toString()) as { type: string; id?: number; result?: unknown };
      if (m.type === 'result' && m.id === id) {
        ws.off('message', on);
        resolve(m.result);
      }
    };
    ws.on('message', on);
    ws.send(JSON.stringify({ id, channel: 'app:info', args: {} }));
  });
}

describe('a zip bomb costs the unpacking thread, never the gateway', () => {
  it('answers app:info over the WebSocket while a 2 MB → 2 GiB tar.gz is being refused', async () => {
    const server = await startRegistryServer();
    cleanups.push(() => server.close());
    serveFixtureRegistry(server);
    const bomb = tarGzBomb('fixture-agent-1.0.0/zeros', 2 * GiB);
    expect(bomb.length).toBeLessThan(2.5 * 1024 * 1024);
    server.routes.set('/download/fixture-agent-1.0.0.tar.gz', bomb);
    const t = openTestGateway({ acpRegistryUrl: server.indexUrl, acpRegistryAllowLoopbackHttp: true });
    cleanups.push(() => t.cleanup());
    const rendererDir = tempDir('sightline-bomb-renderer-');
    fs.writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>Sightline</title>');
    const web = await startWebServer({ gateway: t.gw, rendererDir });
    cleanups.push(() => web.close());
    const ws = new WebSocket(`ws://127.0.0.1:${web.port}/ws?token=${web.token}`, {
      headers: { Origin: `http://127.0.0.1:${web.port}` },
    });
    cleanups.push(() => ws.terminate());
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));

    let settled = false;
    const install = t.gw.acp.registry.install('fixture-agent').then(
      () => undefined,
      (err: Error) => err.message,
    );
    void install.finally(() => (settled = true));
    // The bomb is being written by the worker: its file under the staging folder grows.
    const parent = path.join(t.dataDir, 'acp-agents', 'fixture-agent');
    const growing = () => {
      const staging = fs.existsSync(parent) && fs.readdirSync(parent).find((n) => n.startsWith('.staging-'));
      const file = staging && path.join(parent, staging, 'fixture-agent-1.0.0', 'zeros');
      return file && fs.existsSync(file) && fs.statSync(file).size > 0;
    };
    while (!settled && !growing()) await new Promise((r) => setTimeout(r, 2));
    expect(settled).toBe(false);
    let answered = 0;
    for (let id = 1; !settled; id++) {
      expect(await ping(ws, id)).toMatchObject({ ok: true, value: { mode: 'web' } });
      if (!settled) answered++;
    }
    expect(await install).toBe(
      `Fixture Agent was not installed: the archive unpacks to more than 100 times its size (${bomb.length} bytes): refused as a bomb`,
    );
    // Answers came while the bomb was being unpacked, and it left nothing behind.
    expect(answered).toBeGreaterThan(0);
    expect(fs.readdirSync(parent)).toEqual([]);
    expect(t.gw.acp.profiles.list()).toEqual([]);
  });
});

/** `extract` on a worker thread, into a fresh folder; the error message, or what was unpacked. */
async function unpack(archive: Buffer, kind: 'tar.gz' | 'zip', limits?: ExtractLimits) {
  const dir = tempDir('sightline-unpack-');
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, `a.${kind}`);
  fs.writeFileSync(file, archive);
  const dest = path.join(dir, 'out');
  try {
    return { extracted: await extract(file, kind, dest, limits), dest };
  } catch (err) {
    return { error: (err as Error).message, name: (err as Error).name, dest };
  }
}

describe('hostile archives fail cleanly on the unpacking thread', () => {
  it('a zip whose entry inflates past the size it declares', async () => {
    const r = await unpack(zipBomb('zeros', 1 * GiB, 1024), 'zip');
    expect(r.error).toBe(
      'the archive is damaged: "zeros" does not inflate (too many bytes in the stream. expected 1024. got at least 16384)',
    );
    expect(r.name).toBe('ArchiveError');
  });

  it('a zip that declares 1 GiB in 1 MB: refused by its ratio before anything is inflated', async () => {
    const bomb = zipBomb('zeros', 1 * GiB, 0);
    const truthful = Buffer.from(bomb);
    // Make the directory honest about the size: the refusal needs no inflating at all.
    const cen = truthful.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    truthful.writeUInt32LE(GiB, cen + 24);
    const r = await unpack(truthful, 'zip');
    expect(r.error).toBe(
      `the archive unpacks to more than 100 times its size (${truthful.length} bytes): refused as a bomb`,
    );
    expect(fs.existsSync(path.join(r.dest, 'zeros'))).toBe(false);
  });

  it('a tar header whose checksum is wrong', async () => {
    const body = tar([{ name: 'a.txt', body: 'x' }]);
    body[0] = 'b'.charCodeAt(0); // the name changes, the checksum does not
    const r = await unpack(zlib.gzipSync(body), 'tar.gz');
    expect(r.error).toBe('the archive is damaged: TAR_ENTRY_INVALID: checksum failure');
  });

  it('a tar.gz that ends inside an entry (a complete gzip stream of a cut tar)', async () => {
    const whole = tar([{ name: 'big.bin', body: Buffer.alloc(64 * 1024, 7) }]);
    const r = await unpack(zlib.gzipSync(whole.subarray(0, 512 + 10_000)), 'tar.gz');
    expect(r.error).toMatch(/^the archive is damaged: .*Truncated input/);
  });

  it('a zip cut short (no directory left)', async () => {
    const whole = zip([{ name: 'a.txt', body: 'hello' }]);
    const r = await unpack(whole.subarray(0, whole.length - 30), 'zip');
    expect(r.error).toMatch(/^the archive is damaged: /);
  });

  it('a pax header that names a path outside the folder', async () => {
    const record = (k: string, v: string) => {
      const body = ` ${k}=${v}\n`;
      let n = body.length + 2;
      while (`${n}${body}`.length !== n) n++;
      return `${n}${body}`;
    };
    const pax = record('path', '../../pax-escape.txt');
    const body = tar([
      { name: 'PaxHeader', type: 'pax', body: pax },
      { name: 'innocent.txt', body: 'x' },
    ]);
    const r = await unpack(zlib.gzipSync(body), 'tar.gz');
    expect(r.error).toBe('entry "../../pax-escape.txt" points outside the folder');
    expect(fs.existsSync(path.join(path.dirname(r.dest), '..', 'pax-escape.txt'))).toBe(false);
  });

  it('more entries than the limit', async () => {
    const entries = Array.from({ length: 12 }, (_, i) => ({ name: `f${i}`, body: 'x' }));
    const limits = { maxEntries: 10, maxBytes: GiB };
    expect((await unpack(tarGz(entries), 'tar.gz', limits)).error).toBe(
      'the archive has more than 10 entries',
    );
    expect((await unpack(zip(entries), 'zip', limits)).error).toBe('the archive has more than 10 entries');
  });

  it('a worker that takes too long is stopped', async () => {
    const dir = tempDir('sightline-unpack-');
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    fs.writeFileSync(path.join(dir, 'a.tar.gz'), tarGzBomb('zeros', 1 * GiB));
    const limits = { maxEntries: 10, maxBytes: 8 * GiB };
    await expect(
      extract(path.join(dir, 'a.tar.gz'), 'tar.gz', path.join(dir, 'out'), limits, 1),
    ).rejects.toThrow('unpacking took longer than 0.001 s: stopped');
  });
});

describe('the worker bundle npm run build:electron ships', () => {
  it('unpacks a good archive and refuses a link chain, with tar and yauzl bundled in', async () => {
    const dir = tempDir('sightline-worker-bundle-');
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const bundle = path.join(dir, 'worker', 'archive-worker.cjs');
    await buildArchiveWorker(bundle);
    const run = (file: string, kind: 'tar.gz' | 'zip', dest: string) =>
      new Promise<UnpackAnswer>((resolve, reject) => {
        const w = new Worker(bundle);
        w.once('message', resolve).once('error', reject);
        w.postMessage({ file, kind, dest, limits: { maxEntries: 100, maxBytes: GiB, maxRatio: 100 } });
      });
    fs.writeFileSync(path.join(dir, 'good.zip'), zip([{ name: 'bin/tool', body: 'hi', mode: 0o755 }]));
    expect(await run(path.join(dir, 'good.zip'), 'zip', path.join(dir, 'good'))).toEqual({
      ok: true,
      extracted: { files: 1, bytes: 2, modeless: [] },
    });
    expect(fs.readFileSync(path.join(dir, 'good', 'bin', 'tool'), 'utf8')).toBe('hi');
    fs.writeFileSync(
      path.join(dir, 'chain.tar.gz'),
      tarGz([
        { name: 'L2', type: 'symlink', link: '.' },
        { name: 'L1', type: 'symlink', link: 'L2/..' },
      ]),
    );
    expect(await run(path.join(dir, 'chain.tar.gz'), 'tar.gz', path.join(dir, 'chain'))).toEqual({
      ok: false,
      archive: true,
      message: 'link "L1" points outside the folder',
    });
  });

  it('is found by the bundled main process beside app.asar, where the packaged app unpacks it', async () => {
    // The layout of a packaged app: main inside app.asar (a plain folder under Node), the worker
    // in app.asar.unpacked (asarUnpack). archive.ts is bundled as main.cjs bundles it.
    const dir = tempDir('sightline-worker-asar-');
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const main = path.join(dir, 'app.asar', 'out', 'main', 'archive.cjs');
    await esbuild.build({
      ...(common as esbuild.BuildOptions),
      entryPoints: ['electron/gateway/installers/archive.ts'],
      outfile: main,
      logLevel: 'error',
    });
    await buildArchiveWorker(path.join(dir, 'app.asar.unpacked', 'out', 'worker', 'archive-worker.cjs'));
    const bundled = createRequire(import.meta.url)(main) as { extract: typeof extract };
    fs.writeFileSync(path.join(dir, 'a.tar.gz'), tarGz([{ name: 'bin/tool', body: 'hello', mode: 0o755 }]));
    expect(await bundled.extract(path.join(dir, 'a.tar.gz'), 'tar.gz', path.join(dir, 'out'))).toEqual({
      files: 1,
      bytes: 5,
      modeless: [],
    });
    expect(fs.readFileSync(path.join(dir, 'out', 'bin', 'tool'), 'utf8')).toBe('hello');
  });
});
