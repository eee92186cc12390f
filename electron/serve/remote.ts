// A gateway elsewhere, as this machine's app reaches it: the desktop app (electron/main with
// --connect) and browser mode (electron/web/connect.ts) both come through here, so both use the
// one pinned client (client.ts) and the one credential store. The credential is kept in
// `<data>/remote/credentials.json` (0600) per gateway URL and pin; the first time,
// SIGHTLINE_INVITE (and SIGHTLINE_NAME, default the login name) redeems an invitation — env,
// not the command line, which other users of the machine can read.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AccountView } from '../../shared/ipc/accounts';
import type { Envelope } from '../../shared/ipc/contract';
import type { PushBatch } from '../../shared/ipc/types';
import { connectServe, type ServeClient } from './client';
import { normalizePin } from './tls';

export interface RemoteTarget {
  url: string;
  pin: string;
}

export interface RemoteOptions extends RemoteTarget {
  dataDir: string;
  invite?: { code: string; name: string };
  /** Called once if the gateway ends the client for good (revoked, wrong pin, closed). */
  onEnd?: (reason: string) => void;
}

export interface RemoteGateway {
  client: ServeClient;
  account: AccountView;
  dispatch(channel: unknown, args: unknown): Promise<Envelope<unknown>>;
  subscribe(listener: (batch: PushBatch) => void): () => void;
  close(): void;
}

/**
 * `--connect wss://HOST:PORT/ws --pin sha256:<hex>` (or SIGHTLINE_CONNECT and SIGHTLINE_PIN):
 * the gateway to use instead of a local one; undefined without either. A URL without a pin, or
 * one that is not wss://, is an error: the connection is never made unpinned or in the clear.
 */
export function remoteTarget(argv: readonly string[], env: NodeJS.ProcessEnv): RemoteTarget | undefined {
  const flag = (name: string) => {
    const at = argv.indexOf(name);
    return at === -1 ? undefined : argv[at + 1];
  };
  const url = flag('--connect') ?? env.SIGHTLINE_CONNECT?.trim();
  if (!url) return undefined;
  if (!/^wss:\/\/[^\s/]+\/ws$/.test(url))
    throw new Error(`--connect needs the gateway's wss://HOST:PORT/ws address (got ${JSON.stringify(url)})`);
  const pin = flag('--pin') ?? env.SIGHTLINE_PIN?.trim();
  if (!pin || !normalizePin(pin))
    throw new Error('--connect needs --pin sha256:<hex> (the Fingerprint line of npm run serve)');
  return { url, pin };
}

/** The invitation from the environment, if any. */
export function inviteFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): { code: string; name: string } | undefined {
  const code = env.SIGHTLINE_INVITE?.trim();
  return code ? { code, name: env.SIGHTLINE_NAME?.trim() || os.userInfo().username } : undefined;
}

/** Connects and signs in (the saved credential, else the invitation); rejects with the reason. */
export async function connectRemoteGateway(opts: RemoteOptions): Promise<RemoteGateway> {
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
  return {
    client,
    account,
    dispatch: (channel, args) => client.invoke(typeof channel === 'string' ? channel : '', args),
    subscribe: client.subscribe,
    close: client.close,
  };
}

type Saved = Record<string, { pin: string; credential: string; accountId: string }>;

const file = (dataDir: string) => path.join(dataDir, 'remote', 'credentials.json');

function readSaved(dataDir: string): Saved {
  try {
    const v: unknown = JSON.parse(fs.readFileSync(file(dataDir), 'utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Saved) : {};
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
