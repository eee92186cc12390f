// Child process for the transport fuzz test: a gateway on a temp data dir and browser mode on
// 127.0.0.1, serving a tiny renderer folder. Prints one JSON line {port, token} when listening,
// then serves until killed. A crash shows as the process exiting. A line `connections` on stdin
// is answered with one JSON line {connections} (the server's open connections now).
import readline from 'node:readline';
import { createGateway } from '../../electron/gateway';
import { startWebServer } from '../../electron/web/server';

async function main(): Promise<void> {
  const [dataDir, rendererDir] = process.argv.slice(2);
  if (!dataDir || !rendererDir) throw new Error('usage: serve-worker <dataDir> <rendererDir>');
  const gateway = createGateway({ dataDir, autoStart: false });
  const server = await startWebServer({ gateway, rendererDir });
  process.stdout.write(`${JSON.stringify({ port: server.port, token: server.token })}\n`);
  readline.createInterface({ input: process.stdin }).on('line', (line) => {
    if (line.trim() === 'connections')
      process.stdout.write(`${JSON.stringify({ connections: server.connections() })}\n`);
  });
}

void main();
