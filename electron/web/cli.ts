// `npm run web`: browser mode. Builds nothing itself (the npm script builds the renderer first),
// opens the gateway on SIGHTLINE_DATA_DIR (default ~/.sightline) and serves the renderer on
// 127.0.0.1 with a per-launch token. Set SIGHTLINE_WEB_PORT to pick a port (default: any free).
// Opens the default browser when there is one; `--no-open` skips that. With `--connect URL --pin
// sha256:<hex>` the page talks to a shared gateway (npm run serve) instead of a local one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBrowserMode } from './app';
import { inviteFromEnv, remoteTarget, type RemoteTarget } from '../serve/remote';
import { startConnectedBrowserMode } from './connect';
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
  const port = Number(process.env.SIGHTLINE_WEB_PORT ?? 0);
  const wanted = Number.isInteger(port) && port > 0 && port < 65536 ? port : 0;
  const target = remoteTarget(process.argv, process.env);
  if (target) return runConnected(target, dataDir, rendererDir, wanted, pkg.version);
  // The node file installed on machines added over SSH (npm run web builds it).
  const bundle = path.join(root, 'out/node/sightline-node.mjs');
  const app = await startBrowserMode({
    dataDir,
    rendererDir,
    port: wanted,
    version: pkg.version,
    gateway: { nodes: { bundle } },
  }).catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new Error(`port ${wanted} is in use; set SIGHTLINE_WEB_PORT or free it`);
    }
    throw err;
  });
  const notice = app.host.notice();
  if (notice?.kind === 'damaged')
    console.error(
      `The database at ${notice.path} was damaged; it was moved to ${notice.movedTo}. ` +
        (notice.restoredFrom
          ? `Started from the backup ${notice.restoredFrom}.`
          : 'Started with an empty database.'),
    );
  console.log(`Sightline (browser mode) — data in ${dataDir}`);
  console.log(`Open: ${app.server.url}`);
  // The browser gets a launch file, never the URL: a command line is public (open-browser.ts).
  const launch = process.argv.includes('--no-open')
    ? undefined
    : openInBrowser(app.server.url, path.join(dataDir, 'launch'));
  if (launch?.opened) console.log('(opened in your browser)');

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    launch?.stop();
    console.log(`${signal}: shutting down`);
    void app.close().finally(() => process.exit(0));
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

async function runConnected(
  { url, pin }: RemoteTarget,
  dataDir: string,
  rendererDir: string,
  port: number,
  version: string,
) {
  const invite = inviteFromEnv();
  let close = async (): Promise<void> => undefined;
  const app = await startConnectedBrowserMode({
    url,
    pin,
    dataDir,
    rendererDir,
    port,
    version,
    ...(invite ? { invite } : {}),
    onEnd: (reason) => {
      console.error(`The gateway ended this connection: ${reason}`);
      void close().finally(() => process.exit(1));
    },
  });
  close = app.close;
  console.log(`Sightline (browser mode) — connected to ${url} as ${app.account.id}`);
  console.log(`Open: ${app.server.url}`);
  const launch = process.argv.includes('--no-open')
    ? undefined
    : openInBrowser(app.server.url, path.join(dataDir, 'launch'));
  if (launch?.opened) console.log('(opened in your browser)');
  const stop = () => {
    launch?.stop();
    void app.close().finally(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
