// Child process for the transport fuzz test: a gateway on a temp data dir and browser mode on
// 127.0.0.1, serving a tiny renderer folder. Prints one JSON line {port, token} when listening,
// then serves until killed. A crash shows as the process exiting.
import { createGateway } from '../../electron/gateway';
import { startWebServer } from '../../electron/web/server';

async function main(): Promise<void> {
  const [dataDir, rendererDir] = process.argv.slice(2);
  if (!dataDir || !rendererDir) throw new Error('usage: serve-worker <dataDir> <rendererDir>');
  const gateway = createGateway({ dataDir, autoStart: false });
  const server = await startWebServer({ gateway, rendererDir });
  process.stdout.write(`${JSON.stringify({ port: server.port, token: server.token })}\n`);
}

void main();
