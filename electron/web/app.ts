// Browser mode as an app (`npm run web`, and the e2e tests through the same function): the
// gateway host (damage recovery at start-up, restoring a backup) behind the web server. After a
// restore swaps the gateway, the server answers and pushes from the new one; open pages reload.
import { startGatewayHost, type GatewayHost } from '../gateway/host';
import type { GatewayOptions } from '../gateway/types';
import { startWebServer, type WebServer } from './server';

export interface BrowserModeOptions {
  dataDir: string;
  rendererDir: string;
  /** 0 or absent: any free port. */
  port?: number;
  version: string;
  /** More gateway options (tests: catalog roots, clock, logger). autoStart defaults to true. */
  gateway?: Omit<Partial<GatewayOptions>, 'dataDir'>;
}

export interface BrowserMode {
  server: WebServer;
  host: GatewayHost;
  close(): Promise<void>;
}

export async function startBrowserMode(opts: BrowserModeOptions): Promise<BrowserMode> {
  let server: WebServer | undefined;
  const host = startGatewayHost(
    { autoStart: true, ...opts.gateway, dataDir: opts.dataDir },
    { onSwap: (next) => server?.useGateway(next, next.person.dismissals) },
  );
  try {
    server = await startWebServer({
      gateway: host.gateway,
      rendererDir: opts.rendererDir,
      port: opts.port ?? 0,
      dismissals: host.gateway.person.dismissals,
      app: { version: opts.version, dataDir: opts.dataDir },
      database: host,
    });
  } catch (err) {
    host.close();
    throw err;
  }
  const started = server;
  return {
    server: started,
    host,
    async close() {
      await started.close();
      host.close();
    },
  };
}
