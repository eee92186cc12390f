// Browser mode connected to a shared gateway (`npm run web -- --connect wss://HOST:PORT/ws
// --pin sha256:<hex>`): the page is served on 127.0.0.1 as always, and every request and push is
// relayed to the serve gateway through a pinned client (electron/serve/client.ts). The
// credential is kept in `<data>/remote/credentials.json` (0600) per gateway URL; the first time,
// SIGHTLINE_INVITE (and SIGHTLINE_NAME, default the login name) redeems an invitation — env, not
// the command line, which other users of the machine can read.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AccountView } from '../../shared/ipc/accounts';
import { connectServe, type ServeClient } from '../serve/client';
import { startWebServer, type WebServer } from './server';

export interface ConnectedOptions {
  url: string;
  pin: string;
  dataDir: string;
  rendererDir: string;
  port?: number;
  version: string;
  invite?: { code: string; name: string };
  /** Called once if the gateway ends the client for good (revoked, wrong pin). */
  onEnd?: (reason: string) => void;
}

export interface ConnectedBrowserMode {
  server: WebServer;
  client: ServeClient;
  account: AccountView;
  close(): Promise<void>;
}

type Saved = Record<string, { pin: string; credential: string; accountId: string }>;

const file = (dataDir: string) => path.join(dataDir, 'remote', 'credentials.json');

function readSaved(dataDir: string): Saved {
  try {
    const v: unknown = JSON.parse(fs.readFileSync(file(dataDir), 'utf8'));
    return typeof v === 'object' && v !== null ? (v as Saved) : {};
  } catch {
    return {};
  }
}

function save(dataDir: string, saved: Saved): void {
  fs.mkdirSync(path.dirname(file(dataDir)), { recursive: true, mode: 0o700 });
  const tmp = `${file(dataDir)}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(saved, null, 2), { mode: 0o600 });
  fs.renameSync(tmp, file(dataDir));
}

export async function startConnectedBrowserMode(opts: ConnectedOptions): Promise<ConnectedBrowserMode> {
  const saved = readSaved(opts.dataDir);
  const known = saved[opts.url];
  const credential = known && known.pin === opts.pin ? known.credential : undefined;
  if (!credential && !opts.invite)
    throw new Error(
      `no credential for ${opts.url}: set SIGHTLINE_INVITE to the invitation the owner gave you`,
    );
  const client = connectServe({
    url: opts.url,
    pin: opts.pin,
    ...(credential ? { credential } : { invite: opts.invite! }),
    onCredential: (c, account) =>
      save(opts.dataDir, {
        ...readSaved(opts.dataDir),
        [opts.url]: { pin: opts.pin, credential: c, accountId: account.id },
      }),
    ...(opts.onEnd ? { onEnd: opts.onEnd } : {}),
  });
  const account = await client.ready;
  try {
    const server = await startWebServer({
      remote: {
        invoke: (c, a) => client.invoke(typeof c === 'string' ? c : '', a),
        subscribe: client.subscribe,
      },
      rendererDir: opts.rendererDir,
      port: opts.port ?? 0,
      app: { version: opts.version, dataDir: `${opts.url} (as ${account.id})` },
    });
    return { server, client, account, close: async () => (client.close(), await server.close()) };
  } catch (err) {
    client.close();
    throw err;
  }
}

/** The invitation from the environment, if any. */
export function inviteFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): { code: string; name: string } | undefined {
  const code = env.SIGHTLINE_INVITE?.trim();
  return code ? { code, name: env.SIGHTLINE_NAME?.trim() || os.userInfo().username } : undefined;
}
