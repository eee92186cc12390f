// Child of gateway-memory.bench.ts: bundled with esbuild and run in plain Node (no tsx), the way
// the built main process runs the gateway. It creates the gateway and the API handlers (what
// Electron's main wires before the window), optionally seeds sessions first, and prints one JSON
// line: RSS and JS heap after start (500 ms, then a full GC) and after the fleet snapshot the
// renderer asks for first was built and serialised.
// argv: dataDir, sessions the database must hold (created in one transaction, then the process
// exits: the measured start is always a fresh process on an existing database).
import { createGateway } from '../../electron/gateway/index';
import { createApiHandlers } from '../../electron/gateway/api/handlers';

const MB = 1024 * 1024;
const gc = (globalThis as { gc?: () => void }).gc;
const sample = () => {
  gc?.();
  const m = process.memoryUsage();
  return { rssMB: m.rss / MB, heapMB: m.heapUsed / MB };
};
const silent = { info() {}, warn() {}, error() {} };

async function main(): Promise<void> {
  const [dataDir, seed] = process.argv.slice(2);
  const gw = createGateway({ dataDir: dataDir!, logger: silent });
  const n = Number(seed ?? 0);
  if (n > 0) {
    gw.db.transaction(() => {
      for (let i = gw.sessions.list().length; i < n; i++) gw.sessions.create({ key: `agent:main:s${i}` });
    })();
    gw.close();
    process.stdout.write(`${JSON.stringify({ seeded: n })}\n`);
    return;
  }
  const api = createApiHandlers(gw, {
    app: { name: 'Sightline', version: 'bench', mode: 'electron', dataDir: dataDir! },
  });
  await new Promise((r) => setTimeout(r, 500));
  const started = sample();
  const snapshot = await api.dispatch('fleet:snapshot', {});
  const bytes = JSON.stringify(snapshot).length;
  const served = sample();
  const sessions =
    (snapshot as { ok: boolean; value?: { sessions: unknown[] } }).value?.sessions.length ?? -1;
  gw.close();
  process.stdout.write(`${JSON.stringify({ started, served, sessions, bytes })}\n`);
}

void main();
