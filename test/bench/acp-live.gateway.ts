// Child of acp-live.bench.ts: Sightline's browser mode (startBrowserMode, what `npm run web` runs:
// the gateway host behind the web server) alone in its process, bundled with esbuild like the
// app's main process, so its /proc figures are the gateway's own and nothing of the benchmark's
// (Playwright, the bookkeeping) is in them. The agents it starts are its children, as in the app.
// The benchmark drives it over the IPC channel: one request { id, op, ...args }, one answer
// { id, value } or { id, error } each.
import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startBrowserMode, type BrowserMode } from '../../electron/web/app';

const gc = (globalThis as { gc?: () => void }).gc;
const silent = { info() {}, warn() {}, error() {} };

type Request = { id: number; op: string; [arg: string]: unknown };

let app: BrowserMode | undefined;
const emitted: Record<string, number> = {};
/** The gateway's event-loop delay while the open session is timed. */
const loop = monitorEventLoopDelay({ resolution: 1 });
const gw = () => app!.host.gateway;

/** The parent's bookkeeping of each answer: what the measurements need, nothing more. */
const ops: Record<string, (r: Request) => unknown> = {
  async open(r) {
    const dataDir = r.dataDir as string;
    const catalog = path.join(dataDir, '..', 'catalog');
    const roots = Object.fromEntries(
      ['claude', 'codex', 'opencode', 'pi'].map((p) => {
        fs.mkdirSync(path.join(catalog, p), { recursive: true });
        return [p, path.join(catalog, p)];
      }),
    );
    app = await startBrowserMode({
      dataDir,
      rendererDir: r.rendererDir as string,
      version: 'bench',
      gateway: { catalogRoots: roots, logger: silent },
    });
    return { url: app.server.url };
  },
  /** Saved the app's way: once the person allowed the command line in the page. */
  async profile(r) {
    const p = r.profile as { id: string; name: string; command: string; args: string[] };
    return (await gw().acp.profiles.propose({ ...p, env: {} })).id;
  },
  async start(r) {
    const s = await gw().sessions.start({
      acpProfileId: r.profileId as string,
      message: r.message as string,
      parentKey: 'agent:main:main',
      label: r.label as string,
    });
    return s.key;
  },
  async send(r) {
    for (const key of r.keys as string[]) await gw().human.send(key, r.text as string);
    return (r.keys as string[]).length;
  },
  /** Each session's runs: how many, and how many are still going. */
  runs(r) {
    return (r.keys as string[]).map((k) => {
      const runs = gw().runs.list(k);
      return {
        runs: runs.length,
        busy: runs.filter((x) => x.status === 'running' || x.status === 'queued').length,
      };
    });
  },
  /** The text of each session's assistant messages, oldest first (what the transcript stored). */
  transcripts(r) {
    return (r.keys as string[]).map((k) =>
      gw()
        .transcripts.page(k, { limit: 50 })
        .messages.filter((m) => m.role === 'assistant')
        .map((m) => m.text),
    );
  },
  /** From now on, when the gateway emitted each line of `key`'s live output (its run:delta). */
  watch(r) {
    const key = r.key as string;
    gw().events.on((e) => {
      if (e.type !== 'run:delta' || e.sessionKey !== key) return;
      const at = Date.now();
      for (const m of e.text.matchAll(/seq (\d+) sent/g)) emitted[m[1]!] ??= at;
    });
    return true;
  },
  /** Event-loop delay from now on. */
  loopStart() {
    loop.reset();
    loop.enable();
    return true;
  },
  emitted: () => emitted,
  /** Event-loop delay p50 / p95 / max, ms, since `loopStart`. */
  loopDelay() {
    loop.disable();
    return [loop.percentile(50), loop.percentile(95), loop.max].map((ns) => Math.round(ns / 1e4) / 100);
  },
  /** The JS heap and what V8 and Buffers hold outside it; with `collect`, after three full collections. */
  memory(r) {
    if (r.collect) for (let i = 0; i < 3; i++) gc?.();
    const m = process.memoryUsage();
    return { heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers, rss: m.rss };
  },
  async close() {
    await app?.close();
    app = undefined;
    return true;
  },
};

process.on('message', (r: Request) => {
  void (async () => {
    try {
      const op = ops[r.op];
      if (!op) throw new Error(`unknown op ${r.op}`);
      process.send!({ id: r.id, value: await op(r) });
    } catch (err) {
      process.send!({ id: r.id, error: err instanceof Error ? err.message : String(err) });
    }
  })();
});
process.send!({ id: 0, value: 'up' });
