// Browser mode connected to a shared gateway (`npm run web -- --connect wss://HOST:PORT/ws
// --pin sha256:<hex>`): the page is served on 127.0.0.1 as always, and every request and push is
// relayed to the serve gateway through the pinned client the desktop app uses too
// (electron/serve/remote.ts: one client, one credential store).
import type { AccountView } from '../../shared/ipc/accounts';
import type { ServeClient } from '../serve/client';
import { connectRemoteGateway, type RemoteOptions } from '../serve/remote';
import { startWebServer, type WebServer } from './server';

export interface ConnectedOptions extends RemoteOptions {
  rendererDir: string;
  port?: number;
  version: string;
}

export interface ConnectedBrowserMode {
  server: WebServer;
  client: ServeClient;
  account: AccountView;
  close(): Promise<void>;
}

export async function startConnectedBrowserMode(opts: ConnectedOptions): Promise<ConnectedBrowserMode> {
  const remote = await connectRemoteGateway(opts);
  const { client, account } = remote;
  try {
    const server = await startWebServer({
      remote: { invoke: remote.dispatch, subscribe: remote.subscribe },
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
