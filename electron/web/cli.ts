// `npm run web`: browser mode. Builds nothing itself (the npm script builds the renderer first),
// opens the gateway on SIGHTLINE_DATA_DIR (default ~/.sightline) and serves the renderer on
// 127.0.0.1 with a per-launch token. Set SIGHTLINE_WEB_PORT to pick a port (default: any free).
// Opens the default browser when there is one; `--no-open` skips that.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGateway } from '../gateway/index';
import { createDismissalStore } from '../gateway/api/dismissals';
import { startWebServer } from './server';
import { openInBrowser } from './open-browser';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

async function main(): Promise<void> {
  const dataDir = process.env.SIGHTLINE_DATA_DIR || path.join(os.homedir(), '.sightline');
  const rendererDir = path.join(root, 'out/renderer');
  if (!fs.existsSync(path.join(rendererDir, 'index.html'))) {
    console.error(`No built renderer in ${rendererDir}: run "npm run build:renderer" first.`);
    process.exit(1);
  }
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  const gateway = createGateway({ dataDir, autoStart: true });
  const port = Number(process.env.SIGHTLINE_WEB_PORT ?? 0);
  const wanted = Number.isInteger(port) && port > 0 && port < 65536 ? port : 0;
  const server = await startWebServer({
    gateway,
    rendererDir,
    port: wanted,
    dismissals: createDismissalStore(gateway.db),
    app: { version: pkg.version, dataDir },
  }).catch((err: unknown) => {
    gateway.close();
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new Error(`port ${wanted} is in use; set SIGHTLINE_WEB_PORT or free it`);
    }
    throw err;
  });
  console.log(`Sightline (browser mode) — data in ${dataDir}`);
  console.log(`Open: ${server.url}`);
  if (!process.argv.includes('--no-open') && openInBrowser(server.url))
    console.log('(opened in your browser)');

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: shutting down`);
    void server.close().finally(() => {
      gateway.close();
      process.exit(0);
    });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
