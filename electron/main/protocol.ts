// The app:// scheme: registered as privileged before `ready` (standard + secure, so the page is
// a secure context with a real origin; never bypassCSP), then served from out/renderer through
// the renderer-files module browser mode uses too (one MIME table, one path guard).
import { protocol } from 'electron';
import { readRendererFile } from '../web/renderer-files';
import { APP_SCHEME, appPathname, CONTENT_SECURITY_POLICY } from './security';

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
    const file = await readRendererFile(rendererRoot, appPathname(request.url), request.method);
    // Every response, errors included, carries the CSP, so a 404 page cannot run anything either.
    const headers = {
      ...file.headers,
      'Content-Security-Policy': CONTENT_SECURITY_POLICY,
      'Cache-Control': 'no-cache',
    };
    return new Response(file.body, { status: file.status, headers });
  });
}
