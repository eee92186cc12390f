// The app:// scheme: registered as privileged before `ready` (standard + secure, so the page is
// a secure context with a real origin; never bypassCSP), then served from out/renderer.
import { protocol } from 'electron';
import { readAppFile } from './app-files';
import { APP_SCHEME } from './security';

export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    {
      scheme: APP_SCHEME,
      privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true, codeCache: true },
    },
  ]);
}

export function serveRenderer(rendererRoot: string): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const file = await readAppFile(rendererRoot, request.url, request.method);
    return new Response(file.body, { status: file.status, headers: file.headers });
  });
}
