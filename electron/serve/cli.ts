// `npm run serve -- --listen HOST:PORT [--cert FILE --key FILE] [--data-dir D]`: the gateway
// headless for a team, TLS only. Prints `Fingerprint: sha256:<hex>` (clients pin it) and
// `Invite: <one-time code>` (the owner's while the gateway has none, else a member's). Data in
// --data-dir, else SIGHTLINE_DATA_DIR, else ~/.sightline-serve.
import os from 'node:os';
import path from 'node:path';
import { startServeGateway } from './server';

export function parseListen(value: string | undefined): { host: string; port: number } {
  const m = value ? /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(value) : null;
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new Error('--listen HOST:PORT is required (e.g. --listen 127.0.0.1:7443)');
  return { host: m[1] ?? m[2]!, port };
}

function flag(argv: string[], name: string): string | undefined {
  const at = argv.indexOf(name);
  if (at === -1) return undefined;
  const v = argv[at + 1];
  if (v === undefined || v.startsWith('--')) throw new Error(`${name} needs a value`);
  return v;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const { host, port } = parseListen(flag(argv, '--listen'));
  const dataDir =
    flag(argv, '--data-dir') ?? process.env.SIGHTLINE_DATA_DIR ?? path.join(os.homedir(), '.sightline-serve');
  const certFile = flag(argv, '--cert');
  const keyFile = flag(argv, '--key');
  const serve = await startServeGateway({
    dataDir,
    host,
    port,
    ...(certFile ? { certFile } : {}),
    ...(keyFile ? { keyFile } : {}),
  });
  console.log(`Sightline gateway — data in ${dataDir}`);
  console.log(`Listening: ${serve.url}`);
  console.log(`Fingerprint: ${serve.fingerprint}`);
  console.log(`Invite: ${serve.invite}`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: shutting down`);
    void serve.close().finally(() => process.exit(0));
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
