// A local ACP registry for tests: a real HTTP server on 127.0.0.1 serving an index (the bundled
// snapshot's agents plus the fixture agent as a binary distribution for this platform), an icon
// and the fixture agent's archive, built here from test/fixtures/acp-agent.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { currentPlatform } from '../../electron/gateway/installers/format';
import { tarGz, type ArchiveEntry } from './archives';

export const FIXTURE_AGENT = path.resolve('test/fixtures/acp-agent/agent.mjs');
export const SNAPSHOT = path.resolve('electron/gateway/installers/snapshot/registry.json');
export const FIXTURE_ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><circle cx="8" cy="8" r="6"/></svg>';

type Route = Buffer | string | ((req: http.IncomingMessage, res: http.ServerResponse) => void);

export interface RegistryServer {
  url: string;
  indexUrl: string;
  routes: Map<string, Route>;
  hits: string[];
  close(): Promise<void>;
}

export async function startRegistryServer(): Promise<RegistryServer> {
  const routes = new Map<string, Route>();
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    hits.push(p);
    const route = routes.get(p);
    if (route === undefined) {
      res.writeHead(404).end('not found');
      return;
    }
    if (typeof route === 'function') return route(req, res);
    const body = Buffer.from(route);
    res.writeHead(200, { 'content-length': body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    indexUrl: `${url}/registry/v1/latest/registry.json`,
    routes,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A launcher that runs the fixture ACP agent, as the archive's `cmd`. */
export function launcher(env: Record<string, string> = {}): string {
  const exports = Object.entries(env)
    .map(([k, v]) => `export ${k}='${v}'\n`)
    .join('');
  return `#!/bin/sh\n${exports}exec '${process.execPath}' '${FIXTURE_AGENT}' "$@"\n`;
}

export const fixtureArchive = (env: Record<string, string> = {}, extra: ArchiveEntry[] = []): Buffer =>
  tarGz([
    { name: 'fixture-agent-1.0.0/', type: 'dir' },
    { name: 'fixture-agent-1.0.0/fixture-agent', body: launcher(env), mode: 0o755 },
    { name: 'fixture-agent-1.0.0/README', body: 'The Sightline test fixture agent.\n' },
    ...extra,
  ]);

/** The index: the snapshot's agents and the fixture agent, its archive at `archivePath`. */
export function fixtureIndex(
  server: RegistryServer,
  archivePath = '/download/fixture-agent-1.0.0.tar.gz',
  cmd = './fixture-agent-1.0.0/fixture-agent',
): string {
  const snapshot = JSON.parse(fs.readFileSync(SNAPSHOT, 'utf8')) as { version: string; agents: unknown[] };
  const fixture = {
    id: 'fixture-agent',
    name: 'Fixture Agent',
    version: '1.0.0',
    description: 'The ACP agent of the Sightline tests',
    license: 'Apache-2.0',
    icon: 'icons/fixture-agent.svg',
    distribution: {
      binary: {
        [currentPlatform()!]: {
          archive: `${server.url}${archivePath}`,
          cmd,
          args: ['--acp'],
          env: { FIXTURE_MODE: 'registry' },
        },
      },
    },
  };
  return JSON.stringify({ ...snapshot, agents: [fixture, ...snapshot.agents] });
}

/** Serves the index, the icons (the snapshot's and the fixture's) and the fixture's archive. */
export function serveFixtureRegistry(server: RegistryServer, archive = fixtureArchive()): void {
  server.routes.set('/registry/v1/latest/registry.json', fixtureIndex(server));
  const icons = JSON.parse(
    fs.readFileSync(path.join(path.dirname(SNAPSHOT), 'icons.json'), 'utf8'),
  ) as Record<string, string>;
  for (const [file, svg] of Object.entries(icons)) server.routes.set(`/registry/v1/latest/${file}`, svg);
  server.routes.set('/registry/v1/latest/icons/fixture-agent.svg', FIXTURE_ICON);
  server.routes.set('/download/fixture-agent-1.0.0.tar.gz', archive);
}
